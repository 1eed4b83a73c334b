/**
 * Turns a plain JSON value into a validated instance of a contract class, with errors as
 * `{path, message}` pairs whose paths read like the JSON (`processes[2].executableAndArguments[0].exec`).
 */
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError, type ValidatorOptions } from 'class-validator';
import { oversizeArrays } from './array-bounds';
import { passesCompiledCheck } from './compiled-check';
import { compiledPlainToInstance } from './compiled-transform';
import {
  boundedText,
  MAX_ERROR_MESSAGE_LENGTH,
  MAX_ERROR_PATH_LENGTH,
  MAX_FIELD_ERRORS,
} from './bounded-text';
import type { FieldError } from './field-error';

export type { FieldError } from './field-error';

/** A contract class, optionally with rules that span fields (e.g. unique names in a boot). */
export interface ContractClass<T extends object = object> {
  new (): T;
  /**
   * Rules class-validator cannot express on one property (unique names in a boot) or whose
   * errors must point into an array (`names[1]`). Paths are relative to the object; it runs on
   * every instance of the class in the tree, so it must tolerate ill-typed fields.
   */
  crossCheck?(value: T): FieldError[];
}

export type Validated<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/**
 * Unknown fields are errors (a misspelt `gracePeriodSecond` must not be silently ignored), and
 * so are values that are not objects of a known class.
 */
export const VALIDATOR_OPTIONS: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  validationError: { target: false, value: false },
};

/**
 * `plain` as an instance of `cls`, or why not. Arrays over their maximum are refused before any
 * item is looked at, so the work is bounded by the limits, not by the input; the errors are
 * bounded too ({@link boundedFieldErrors}).
 */
export function validateData<T extends object>(
  cls: ContractClass<T>,
  plain: unknown,
): Validated<T> {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    return { ok: false, errors: [{ path: '', message: 'must be a JSON object' }] };
  }
  if (frozenValid.get(plain) === cls) return { ok: true, value: plain as T };
  const oversize = oversizeArrays(cls, plain);
  if (oversize.length > 0) return { ok: false, errors: boundedFieldErrors(oversize) };
  const built = instanceOf(cls, plain);
  if (!built.ok) return built;
  const { value } = built;
  const crossErrors = crossCheckTree(value, '');
  // The compiled check says yes for valid records at a fraction of the cost; a "no" is
  // explained by class-validator below.
  if (passesCompiledCheck(value) && crossErrors.length === 0) return { ok: true, value };
  const errors = toFieldErrors(validateSync(value, VALIDATOR_OPTIONS));
  errors.push(...crossErrors);
  return errors.length === 0
    ? { ok: true, value }
    : { ok: false, errors: boundedFieldErrors(errors) };
}

/**
 * `plain` as an instance of `cls`: built from a plan where it is sure to build what
 * class-transformer would (and keeps every key of a map), else by class-transformer, which
 * throws on some input (a map with a key `constructor`): that is refused, not thrown.
 */
function instanceOf<T extends object>(cls: ContractClass<T>, plain: object): Validated<T> {
  const compiled = compiledPlainToInstance(cls, plain);
  if (compiled !== undefined) return { ok: true, value: compiled };
  try {
    return { ok: true, value: plainToInstance(cls, plain) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      errors: [
        {
          path: '',
          message: boundedText(
            `cannot be read as ${cls.name}: ${reason}`,
            MAX_ERROR_MESSAGE_LENGTH,
          ),
        },
      ],
    };
  }
}

/** Values {@link validateFrozen} passed, with the class they passed as: they cannot change. */
const frozenValid = new WeakMap<object, ContractClass>();

/**
 * {@link validateData}, its value then frozen to the last leaf: validating that value again as
 * the same class (the client's check before it publishes a session file's boot) returns it at
 * once, since nothing in it can have changed. A 200-process boot validated twice spent 76 ms on
 * the second time in the CLI.
 */
export function validateFrozen<T extends object>(
  cls: ContractClass<T>,
  plain: unknown,
): Validated<T> {
  const checked = validateData(cls, plain);
  if (checked.ok) {
    deepFreeze(checked.value);
    frozenValid.set(checked.value, cls);
  }
  return checked;
}

function deepFreeze(value: object): void {
  for (const child of Object.values(value) as unknown[]) {
    if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) deepFreeze(child);
  }
  Object.freeze(value);
}

/** The path of the entry that counts the errors left out. */
export const MORE_ERRORS_PATH = '(more)';

/**
 * At most {@link MAX_FIELD_ERRORS} errors, each with a bounded, sanitised path and message,
 * then one entry at path `(more)` counting the rest: a rejection stays small whatever the input.
 */
export function boundedFieldErrors(errors: readonly FieldError[]): FieldError[] {
  const counted = errors.filter((e) => e.path === MORE_ERRORS_PATH);
  const listed = errors.filter((e) => e.path !== MORE_ERRORS_PATH);
  const left = counted.reduce((n, e) => n + (Number(/^\d+/.exec(e.message)?.[0]) || 0), 0);
  const out = listed.slice(0, MAX_FIELD_ERRORS).map((e) => ({
    path: boundedText(e.path, MAX_ERROR_PATH_LENGTH),
    message: boundedText(e.message, MAX_ERROR_MESSAGE_LENGTH),
  }));
  const more = listed.length - out.length + left;
  if (more > 0) out.push({ path: MORE_ERRORS_PATH, message: `${more} more errors not listed` });
  return out;
}

/**
 * Constraints about a value's kind. When one fails, the others on the same value (length,
 * pattern, range) only repeat the problem, so they are left out.
 */
const KIND_CONSTRAINTS = new Set([
  'isDefined',
  'isString',
  'isInt',
  'isBoolean',
  'isArray',
  'isObject',
]);

/** Flattens class-validator's nested errors into paths; array indices become `[i]`. */
export function toFieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const path = joinPath(parent, error.property);
    const constraints = Object.entries(error.constraints ?? {});
    const kind = constraints.filter(([name]) => KIND_CONSTRAINTS.has(name));
    for (const [name, message] of kind.length > 0 ? kind : constraints) {
      out.push({
        path,
        message: name === 'whitelistValidation' ? 'is not a known field' : message,
      });
    }
    out.push(...toFieldErrors(error.children ?? [], path));
  }
  return out;
}

/** `joinPath('processes', '3')` → `processes[3]`; `joinPath('processes[3]', 'name')` → `processes[3].name`. */
function joinPath(parent: string, property: string | number): string {
  const p = String(property);
  if (p === '') return parent;
  if (/^\d+$/.test(p)) return `${parent}[${p}]`;
  return parent === '' ? p : `${parent}.${p}`;
}

/**
 * Runs `crossCheck` of every contract instance in the tree, prefixing paths with its place. The
 * place is spelt out only for an instance that has errors: this runs on every valid record too.
 */
function crossCheckTree(value: unknown, path: string): FieldError[] {
  const out: FieldError[] = [];
  const keys: string[] = [];
  const placeOf = () => keys.reduce<string>((parent, key) => joinPath(parent, key), path);
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    const check = (node.constructor as Partial<ContractClass> | undefined)?.crossCheck;
    if (check) {
      for (const e of check(node))
        out.push({ path: joinPath(placeOf(), e.path), message: e.message });
    }
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      keys.push(key);
      visit(record[key]);
      keys.pop();
    }
  };
  visit(value);
  return out;
}
