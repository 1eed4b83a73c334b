/**
 * A fast yes/no to "does class-validator accept this instance under {@link VALIDATOR_OPTIONS}?",
 * for the records that pass, which are nearly all of them.
 *
 * class-validator answers the same question, but for every object it filters the whole metadata
 * storage and builds an error tree, empty or not: more than half of a state replay went there
 * (bench/README.md, "Where the time goes"). This walks a plan made once per class from the same
 * metadata (`getTargetValidationMetadatas`, so inheritance is resolved by class-validator
 * itself) and calls the same constraint functions with the same arguments, in the order
 * `ValidationExecutor` does. It only says yes or no: a "no" goes to class-validator, which says
 * why, so every message is still class-validator's.
 *
 * Where this is unsure it says no: a class using a feature it does not model (groups, `always`,
 * async constraints, other metadata types) has no plan, and a validator's truthy answer other
 * than `true` counts as no. A wrong "no" costs time; a wrong "yes" would let a record through,
 * which `compiled-check.spec.ts` hunts for by comparing both on mutations of every example.
 */
import {
  getMetadataStorage,
  ValidationTypes,
  type ValidationArguments,
  type ValidatorConstraintInterface,
} from 'class-validator';
import type { ConstraintMetadata } from 'class-validator/types/metadata/ConstraintMetadata';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

/**
 * One constraint on a property, with the validators class-validator would run for it: their
 * instances, taken once from class-validator's container. `ConstraintMetadata.instance` is a
 * getter that searches the container's list of every constraint class on each call; a third
 * of the check's time went there (kpm sets no container of its own, so the default one always
 * hands back the same instance).
 */
interface ConstraintStep {
  metadata: ValidationMetadata;
  validators: ConstraintMetadata[];
  instances: ValidatorConstraintInterface[];
}

/** What one property of a class must satisfy. */
interface PropertyPlan {
  name: string;
  /** `@IsOptional` and the like: when one says false, nothing else is checked. */
  conditions: ValidationMetadata[];
  /** `@IsDefined`: checked first. */
  defined: ConstraintStep[];
  custom: ConstraintStep[];
  /** `@ValidateNested`: the value (or each item) must itself pass. */
  nested: boolean;
}

interface ClassPlan {
  /** No validation metadata: class-validator calls that an unknown value. */
  unknown: boolean;
  properties: PropertyPlan[];
  known: ReadonlySet<string>;
}

const MODELLED_TYPES = new Set<string>([
  ValidationTypes.CONDITIONAL_VALIDATION,
  ValidationTypes.CUSTOM_VALIDATION,
  ValidationTypes.IS_DEFINED,
  ValidationTypes.NESTED_VALIDATION,
]);

/** Plans by constructor; `null` for a class this cannot check (it takes the slow path). */
const plans = new Map<unknown, ClassPlan | null>();

/** True only if class-validator would find no error in `object` (its nested objects included). */
export function passesCompiledCheck(object: object): boolean {
  const plan = planOf(object.constructor);
  if (plan === null || plan.unknown) return false;
  for (const key of Object.keys(object)) if (!plan.known.has(key)) return false;
  const record = object as Record<string, unknown>;
  for (const property of plan.properties) {
    if (!checkProperty(object, record[property.name], property)) return false;
  }
  return true;
}

/** `ValidationExecutor.performValidations`: conditions, then defined, custom, nested. */
function checkProperty(object: object, value: unknown, property: PropertyPlan): boolean {
  for (const condition of property.conditions) {
    const applies = condition.constraints[0] as (object: object, value: unknown) => boolean;
    if (!applies(object, value)) return true;
  }
  for (const step of property.defined) if (!checkConstraint(object, value, step)) return false;
  for (const step of property.custom) if (!checkConstraint(object, value, step)) return false;
  return !property.nested || checkNested(value);
}

/** `ValidationExecutor.customValidations`, `each` spreading over arrays, sets and maps. */
function checkConstraint(object: object, value: unknown, step: ConstraintStep): boolean {
  const { metadata } = step;
  if (metadata.validateIf && !metadata.validateIf(object, value)) return true;
  const args: ValidationArguments = {
    targetName: object.constructor ? object.constructor.name : (undefined as unknown as string),
    property: metadata.propertyName,
    object,
    value,
    constraints: metadata.constraints,
  };
  const items = metadata.each ? collectionItems(value) : undefined;
  for (const constraint of step.instances) {
    if (items === undefined) {
      if (constraint.validate(value, args) !== true) return false;
    } else {
      for (const item of items) if (constraint.validate(item, args) !== true) return false;
    }
  }
  return true;
}

/** `ValidationExecutor.nestedValidations`: undefined passes; collections item by item. */
function checkNested(value: unknown): boolean {
  if (value === undefined) return true;
  const items = collectionItems(value);
  if (items !== undefined) {
    for (const item of items) if (!checkNested(item)) return false;
    return true;
  }
  return value instanceof Object && passesCompiledCheck(value);
}

/** Arrays, sets and maps' values, as class-validator spreads them; undefined for anything else. */
function collectionItems(value: unknown): Iterable<unknown> | undefined {
  if (Array.isArray(value)) return value as unknown[];
  if (value instanceof Set) return value as Set<unknown>;
  if (value instanceof Map) return value.values();
  return undefined;
}

function planOf(target: unknown): ClassPlan | null {
  let plan = plans.get(target);
  if (plan === undefined) {
    plan =
      typeof target === 'function'
        ? compilePlan(target as abstract new (...args: never[]) => unknown)
        : null;
    plans.set(target, plan);
  }
  return plan;
}

/** The plan of `target` from class-validator's own selection of its metadata, or null. */
function compilePlan(target: abstract new (...args: never[]) => unknown): ClassPlan | null {
  const storage = getMetadataStorage();
  const metadatas = storage.getTargetValidationMetadatas(
    target,
    undefined as unknown as string,
    false,
    false,
    undefined,
  );
  if (metadatas.length === 0) return { unknown: true, properties: [], known: new Set() };
  if (!metadatas.every(isModelled)) return null;
  const grouped = storage.groupByPropertyName(metadatas);
  const properties: PropertyPlan[] = [];
  for (const [name, list] of Object.entries(grouped)) {
    const steps = (type: string) =>
      list.filter((m) => m.type === type).map((metadata) => stepOf(metadata));
    const defined = steps(ValidationTypes.IS_DEFINED);
    const custom = steps(ValidationTypes.CUSTOM_VALIDATION);
    if ([...defined, ...custom].some((step) => step.validators.some((v) => v.async))) return null;
    properties.push({
      name,
      conditions: list.filter((m) => m.type === ValidationTypes.CONDITIONAL_VALIDATION),
      defined,
      custom,
      nested: list.some((m) => m.type === ValidationTypes.NESTED_VALIDATION),
    });
  }
  return { unknown: false, properties, known: new Set(Object.keys(grouped)) };
}

function isModelled(metadata: ValidationMetadata): boolean {
  return (
    MODELLED_TYPES.has(metadata.type) &&
    metadata.always === undefined &&
    (metadata.groups === undefined || metadata.groups.length === 0)
  );
}

function stepOf(metadata: ValidationMetadata): ConstraintStep {
  const validators = getMetadataStorage().getTargetValidatorConstraints(metadata.constraintCls);
  return { metadata, validators, instances: validators.map((validator) => validator.instance) };
}
