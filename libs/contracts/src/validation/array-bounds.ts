/**
 * Arrays over their maximum, found before anything is built from their items: a megabyte of `{}`
 * items would otherwise be turned into instances and validated one by one, yielding a hundred
 * megabytes of errors. The bounds are the classes' own `@ArrayMaxSize` rules, so a rule lives
 * in one place; nested classes (`@Type`) are followed only into arrays within their bounds.
 */
import { getMetadataStorage } from 'class-validator';
import type { FieldError } from './field-error';
import { typeStorage } from './type-storage';

type AnyClass = new () => object;

/** Every array of `plain` longer than its class allows, with the rule's own message. */
export function oversizeArrays(cls: AnyClass, plain: unknown, path = ''): FieldError[] {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) return [];
  const value = plain as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const { property, max, message } of arrayBounds(cls)) {
    const items = value[property];
    if (Array.isArray(items) && items.length > max) {
      errors.push({
        path: join(path, property),
        message: message ?? `must have at most ${max} items`,
      });
    }
  }
  if (errors.length > 0) return errors;
  for (const [property, nested] of nestedClasses(cls)) {
    const child = value[property];
    const items = Array.isArray(child) ? child : [child];
    items.forEach((item, i) => {
      const at = Array.isArray(child) ? `${join(path, property)}[${i}]` : join(path, property);
      errors.push(...oversizeArrays(nested, item, at));
    });
  }
  return errors;
}

interface ArrayBound {
  property: string;
  max: number;
  message?: string;
}

const boundsOf = new Map<AnyClass, ArrayBound[]>();

function arrayBounds(cls: AnyClass): ArrayBound[] {
  let bounds = boundsOf.get(cls);
  if (bounds === undefined) {
    bounds = getMetadataStorage()
      .getTargetValidationMetadatas(cls, '', true, false)
      .filter((m) => m.name === 'arrayMaxSize')
      .map((m) => ({
        property: m.propertyName,
        max: Number(m.constraints[0]),
        ...(typeof m.message === 'string' ? { message: m.message } : {}),
      }));
    boundsOf.set(cls, bounds);
  }
  return bounds;
}

const nestedOf = new Map<AnyClass, Array<[string, AnyClass]>>();

/** Properties whose values class-transformer turns into instances of a contract class. */
function nestedClasses(cls: AnyClass): Array<[string, AnyClass]> {
  let nested = nestedOf.get(cls);
  if (nested === undefined) {
    nested = findNestedClasses(cls);
    nestedOf.set(cls, nested);
  }
  return nested;
}

function findNestedClasses(cls: AnyClass): Array<[string, AnyClass]> {
  const out: Array<[string, AnyClass]> = [];
  for (const property of validatedProperties(cls)) {
    const meta = typeStorage.findTypeMetadata(cls, property);
    const nested = meta?.typeFunction() as AnyClass | undefined;
    if (typeof nested === 'function') out.push([property, nested]);
  }
  return out;
}

function validatedProperties(cls: AnyClass): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  return [...new Set(metadata.map((m) => m.propertyName))];
}

function join(parent: string, property: string): string {
  return parent === '' ? property : `${parent}.${property}`;
}
