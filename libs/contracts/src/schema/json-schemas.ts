/**
 * JSON Schema (draft-07) for every CloudEvent type, generated from the same classes that
 * validate records, so the documents cannot drift from the code.
 */
import {
  targetConstructorToSchema,
  validationMetadatasToSchemas,
} from 'class-validator-jsonschema';
import type { IOptions } from 'class-validator-jsonschema/build/options';
import {
  CLOUDEVENTS_CONTENT_TYPE,
  CloudEventAttributes,
  DATA_CONTENT_TYPE,
  EXTENSION_ATTRIBUTE,
} from '../envelope';
import type { EventType } from '../event-types';
import { EVENT_TYPES, typeEntry } from '../registry';
import { SCHEMA_CONVERTERS, type JsonSchema } from './constraint-schemas';
import { typeStorage } from '../validation/type-storage';

export type { JsonSchema };

/**
 * The schema of every contract class by class name, with `$ref`s starting with `refPrefix`.
 * Every object schema forbids unknown properties, as `parseRecord` does.
 */
export function classSchemas(refPrefix: string): Record<string, JsonSchema> {
  const options: Partial<IOptions> = {
    classTransformerMetadataStorage: typeStorage,
    refPointerPrefix: refPrefix,
    additionalConverters: SCHEMA_CONVERTERS,
  };
  const schemas = validationMetadatasToSchemas(options) as Record<string, JsonSchema>;
  // A subclass without decorators of its own (RestartCommand extends QueryCommand) is not listed.
  for (const type of EVENT_TYPES) {
    const cls = typeEntry(type).dataClass;
    schemas[cls.name] ??= targetConstructorToSchema(cls, options) as JsonSchema;
  }
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [
      name,
      { ...schema, additionalProperties: false },
    ]),
  );
}

/** The names of the schemas `root` refers to, directly or not, including `root`. */
export function reachableSchemas(
  root: string,
  schemas: Record<string, JsonSchema>,
  refPrefix: string,
): string[] {
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    if (!schemas[name]) throw new Error(`schema ${name} is not generated`);
    seen.add(name);
    for (const ref of JSON.stringify(schemas[name]).matchAll(/"\$ref":"([^"]+)"/g)) {
      visit(ref[1].slice(refPrefix.length));
    }
  };
  visit(root);
  return [...seen].sort();
}

/**
 * The CloudEvent envelope of `type` with its data schema referenced as `dataRef`: the
 * attributes kpm uses, `type` fixed, `subject` required where it is the session, and
 * extension attributes allowed as CloudEvents permits.
 */
export function envelopeSchema(
  type: EventType,
  attributes: JsonSchema,
  dataRef: string,
): JsonSchema {
  const entry = typeEntry(type);
  const properties = { ...(attributes.properties ?? {}) };
  properties.type = { type: 'string', enum: [type] };
  properties.datacontenttype = { type: 'string', enum: [DATA_CONTENT_TYPE] };
  properties.data = { $ref: dataRef };
  const required = [...(attributes.required ?? []), 'data'];
  if (entry.subjectRequired) required.push('subject');
  return {
    title: type,
    description: `${entry.summary} A CloudEvents 1.0 event in structured mode (${CLOUDEVENTS_CONTENT_TYPE}).`,
    type: 'object',
    properties,
    required,
    patternProperties: { [EXTENSION_ATTRIBUTE.source]: {} },
    additionalProperties: false,
  };
}

/** One self-contained JSON Schema document per CloudEvent type. */
export function eventJsonSchemas(): Record<string, JsonSchema> {
  const prefix = '#/definitions/';
  const schemas = classSchemas(prefix);
  const attributes = schemas[CloudEventAttributes.name];
  return Object.fromEntries(
    EVENT_TYPES.map((type) => {
      const dataClass = typeEntry(type).dataClass.name;
      const definitions = Object.fromEntries(
        reachableSchemas(dataClass, schemas, prefix).map((name) => [name, schemas[name]]),
      );
      const envelope = envelopeSchema(type, attributes, `${prefix}${dataClass}`);
      return [
        type,
        { $schema: 'http://json-schema.org/draft-07/schema#', ...envelope, definitions },
      ];
    }),
  );
}
