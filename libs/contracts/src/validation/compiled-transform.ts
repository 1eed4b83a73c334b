/**
 * class-transformer's `plainToInstance(cls, plain)` for the values kpm validates: JSON read from
 * a record, a session file or a settings file, as contract classes whose only class-transformer
 * metadata is `@Type`.
 *
 * class-transformer looks up its metadata storage for every key of every object it builds
 * (expose, exclude, type and transform metadata, each walking the class's ancestors): a
 * completion of 200 processes took 50–70 ms to build in a fresh process, the CLI's case, and a
 * quarter of a state replay went there (docs/decisions.md §11.12). This builds the same
 * instances from a plan made once per class from the same storage.
 *
 * One difference, on purpose: a map's keys are all kept (see {@link buildPlain}).
 *
 * Where it is unsure it builds nothing and says so (`undefined`), and the caller asks
 * class-transformer: a class with `@Expose`, `@Exclude`, `@Transform`, a discriminator or a
 * strategy; a key class-validator does not know (the record is refused anyway: unknown fields
 * are errors); a value JSON cannot hold (a Date, a Map, a class instance, a promise); a target
 * type of Date, Buffer, Map or Set. `compiled-transform.spec.ts` holds it to class-transformer
 * on mutants of every example record.
 */
import { TransformationType } from 'class-transformer';
import { getMetadataStorage } from 'class-validator';
import type { TypeMetadata } from 'class-transformer/types/interfaces/metadata/type-metadata.interface';
import { typeStorage } from './type-storage';

type AnyClass = new () => object;

/** How class-transformer builds one property a class's validation knows. */
interface PropertyBuild {
  /** Its `@Type`, if any: `typeFunction` names the class of the value or of its items. */
  type?: TypeMetadata;
  /** An array value becomes a plain array (its `design:type` is Array, absent, or no array). */
  plainArray: boolean;
}

interface ClassBuild {
  properties: ReadonlyMap<string, PropertyBuild>;
}

/** Returned from inside when the value holds something not modelled. */
const UNSURE = Symbol('unsure');

const builds = new Map<unknown, ClassBuild | null>();

/** `plainToInstance(cls, plain)` with class-transformer's default options, or undefined if unsure. */
export function compiledPlainToInstance<T extends object>(
  cls: new () => T,
  plain: object,
): T | undefined {
  const value = buildValue(plain, cls);
  return value === UNSURE ? undefined : (value as T);
}

/** `TransformOperationExecutor.transform` for JSON values; `target` is the `@Type`'s class. */
function buildValue(value: unknown, target: unknown): unknown {
  if (Array.isArray(value)) return buildArray(value, target);
  if (target === String || target === Number || target === Boolean) {
    return value === null || value === undefined
      ? value
      : (target as (v: unknown) => unknown)(value);
  }
  if (target === Date || target === Buffer || target === Map || target === Set) return UNSURE;
  if (typeof value !== 'object' || value === null) return value;
  if (Object.getPrototypeOf(value) !== Object.prototype) return UNSURE;
  if (typeof (value as { then?: unknown }).then === 'function') return UNSURE;
  const record = value as Record<string, unknown>;
  if (target === undefined) return buildPlain(record);
  return typeof target === 'function' ? buildInstance(record, target as AnyClass) : UNSURE;
}

/** An array's items, each built as `target` (class-transformer gives items no array type). */
function buildArray(items: readonly unknown[], target: unknown): unknown {
  const out: unknown[] = [];
  for (const item of items) {
    const built = buildValue(item, target);
    if (built === UNSURE) return UNSURE;
    out.push(built);
  }
  return out;
}

/**
 * An object without a class (a map: `env`, `labels`): a copy of every key, its nested values
 * built without a class too. Here kpm parts from class-transformer, which drops a map's keys
 * named like `Object.prototype`'s members (`toString`: an environment variable lost without a
 * word) and throws a TypeError on a key `constructor` (a record no consumer could answer). A
 * key `__proto__` (JSON.parse makes it an own key) stays an own key, never the prototype.
 */
function buildPlain(value: Record<string, unknown>): unknown {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const built = buildValue(value[key], undefined);
    if (built === UNSURE) return UNSURE;
    if (key === '__proto__') {
      Object.defineProperty(out, key, {
        value: built,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      out[key] = built;
    }
  }
  return out;
}

function buildInstance(value: Record<string, unknown>, target: AnyClass): unknown {
  const build = classBuild(target);
  if (build === null) return UNSURE;
  const out = new target() as Record<string, unknown>;
  for (const key of Object.keys(value)) {
    if (key === '__proto__' || key === 'constructor') continue;
    const property = build.properties.get(key);
    if (property === undefined) return UNSURE;
    const sub = value[key];
    const type = property.type?.typeFunction({ newObject: out, object: value, property: key });
    if (Array.isArray(sub) && !property.plainArray) return UNSURE;
    if (skipped(out, key)) continue;
    const built = buildValue(sub, type);
    if (built === UNSURE) return UNSURE;
    out[key] = built;
  }
  return out;
}

/**
 * Keys of a class's object class-transformer leaves out (`__proto__` and `constructor` are left
 * out before): a getter without a setter on the new object's own prototype, and anything that
 * reads as a function on the new object (`toString`, a method).
 */
function skipped(out: object, key: string): boolean {
  const descriptor = Object.getOwnPropertyDescriptor(out.constructor.prototype, key);
  return (
    (descriptor !== undefined && descriptor.set === undefined) ||
    (out as Record<string, unknown>)[key] instanceof Function
  );
}

function classBuild(target: AnyClass): ClassBuild | null {
  let build = builds.get(target);
  if (build === undefined) {
    build = compileBuild(target);
    builds.set(target, build);
  }
  return build;
}

/** The plan of `target`, or null if it uses class-transformer beyond `@Type`. */
function compileBuild(target: AnyClass): ClassBuild | null {
  if (typeStorage.getStrategy(target) !== 'none') return null;
  if (typeStorage.getExposedMetadatas(target).length > 0) return null;
  if (typeStorage.getExcludedMetadatas(target).length > 0) return null;
  const known = getMetadataStorage()
    .getTargetValidationMetadatas(target, undefined as unknown as string, false, false, undefined)
    .map((metadata) => metadata.propertyName);
  const properties = new Map<string, PropertyBuild>();
  for (const name of new Set(known)) {
    const transforms = typeStorage.findTransformMetadatas(
      target,
      name,
      TransformationType.PLAIN_TO_CLASS,
    );
    if (transforms.length > 0) return null;
    const type = typeStorage.findTypeMetadata(target, name) as TypeMetadata | undefined;
    if (type?.options?.discriminator !== undefined) return null;
    if (type !== undefined && type.reflectedType === Map) return null;
    properties.set(name, { type, plainArray: makesPlainArray(type?.reflectedType) });
  }
  return { properties };
}

/** class-transformer's `instantiateArrayType`: a class that is not a Set or array-like gives []. */
function makesPlainArray(reflectedType: unknown): boolean {
  if (reflectedType === undefined || reflectedType === Array) return true;
  if (typeof reflectedType !== 'function') return false;
  try {
    const made = new (reflectedType as new () => object)();
    return !(made instanceof Set) && !('push' in made);
  } catch {
    return false;
  }
}
