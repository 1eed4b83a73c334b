/**
 * JSON Schema for kpm's own constraints (validation/rules.ts), looked up by constraint name,
 * plus fixes to class-validator-jsonschema's defaults. Kept beside the generator so the runtime
 * library does not depend on schema packages.
 */
import { ValidationTypes, IS_RFC_3339, MAX, MIN } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { MAX_PATH_LENGTH, STRING_MAP_RULES, type StringMapRule } from '../validation/rules';

/** A JSON Schema object (draft-07 / AsyncAPI Schema). */
export interface JsonSchema {
  [keyword: string]: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

function stringMap(rule: StringMapRule): JsonSchema {
  return {
    type: 'object',
    maxProperties: rule.maxEntries,
    propertyNames: { pattern: rule.keys.source },
    additionalProperties: rule.values
      ? { type: 'string', pattern: rule.values.source }
      : { type: 'string' },
  };
}

const UUID_SCHEMA: JsonSchema = { type: 'string', format: 'uuid' };

/** Schemas of the custom constraints, by the `name` given to `ValidateBy`. */
const CUSTOM_CONSTRAINT_SCHEMAS: Record<string, JsonSchema> = {
  isSafeAbsolutePath: {
    type: 'string',
    description: 'An absolute path without ".." segments.',
    pattern: '^/',
    maxLength: MAX_PATH_LENGTH,
    not: { pattern: '(^|/)\\.\\.(/|$)' },
  },
  isLogFilePath: {
    type: 'string',
    description:
      'A log file (drunc\'s process_logs_path): an absolute path without ".." segments, naming a file inside a directory.',
    pattern: '^/[^/].*[^/]$',
    maxLength: MAX_PATH_LENGTH,
    not: { pattern: '(^|/)\\.\\.(/|$)' },
  },
  isDataMount: {
    type: 'string',
    description:
      'A host directory: an absolute path without ".." segments, or "." (also "./") for the execution directory, as drunc\'s data_mount.',
    anyOf: [
      { enum: ['.', './'] },
      { pattern: '^/', maxLength: MAX_PATH_LENGTH, not: { pattern: '(^|/)\\.\\.(/|$)' } },
    ],
  },
  isSecretEnvList: {
    description:
      "Each variable named once, not also in env, and not USER (kpm sets it to the command's user).",
  },
  isUuidStages: {
    type: 'array',
    description: "Kill stages in drunc's shutdown order, each a list of process uuids.",
    items: { type: 'array', items: UUID_SCHEMA },
  },
  ...Object.fromEntries(Object.values(STRING_MAP_RULES).map((r) => [r.name, stringMap(r)])),
};

/** Converters by constraint type, in class-validator-jsonschema's `additionalConverters` shape. */
export const SCHEMA_CONVERTERS: Record<
  string,
  JsonSchema | ((meta: ValidationMetadata) => JsonSchema)
> = {
  [ValidationTypes.CUSTOM_VALIDATION]: (meta: ValidationMetadata) => {
    const schema = meta.name === undefined ? undefined : CUSTOM_CONSTRAINT_SCHEMAS[meta.name];
    if (!schema)
      throw new Error(
        `no JSON Schema for the constraint "${meta.name}" (add it to CUSTOM_CONSTRAINT_SCHEMAS)`,
      );
    return schema;
  },
  // Required-ness is the schema's `required` list; the default `not: {type: null}` beside a $ref is noise.
  [ValidationTypes.IS_DEFINED]: {},
  [IS_RFC_3339]: { type: 'string', format: 'date-time' },
  // The defaults add `type: number`, which would override `integer` from IsInt.
  [MIN]: (meta: ValidationMetadata) => ({ minimum: meta.constraints[0] as number }),
  [MAX]: (meta: ValidationMetadata) => ({ maximum: meta.constraints[0] as number }),
};
