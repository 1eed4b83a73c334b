/**
 * The CloudEvents 1.0 envelope in structured JSON mode (docs/design.md §3.1): every kpm record
 * value is one JSON object carrying the context attributes and `data`, with the Kafka header
 * `content-type: application/cloudevents+json`.
 */
import { Equals, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsTimestamp } from './validation/rules';

export const CLOUDEVENTS_SPEC_VERSION = '1.0';
export const CLOUDEVENTS_CONTENT_TYPE = 'application/cloudevents+json';
export const CONTENT_TYPE_HEADER = 'content-type';
export const DATA_CONTENT_TYPE = 'application/json';

/** Headers of every record kpm writes. */
export const CLOUDEVENT_HEADERS: Readonly<Record<string, string>> = {
  [CONTENT_TYPE_HEADER]: CLOUDEVENTS_CONTENT_TYPE,
};

/** Attributes CloudEvents requires; without them a record is not a CloudEvent at all. */
export const REQUIRED_ATTRIBUTES = ['specversion', 'id', 'source', 'type'] as const;

/** CloudEvents extension attribute names: lower-case letters and digits (spec §3.1.1). */
export const EXTENSION_ATTRIBUTE = /^[a-z0-9]{1,20}$/;

/** The context attributes kpm uses, validated; `data` is validated by its type's class. */
export class CloudEventAttributes {
  @Equals(CLOUDEVENTS_SPEC_VERSION, { message: 'must be "1.0"' })
  specversion!: '1.0';

  /** Unique per event; for a command it is the command id. Derived from inputs (ids.ts). */
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  id!: string;

  /** A URI-reference naming the producer, e.g. `/kpm/boot-worker/host1`. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  source!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  type!: string;

  @IsOptional()
  @IsTimestamp()
  time?: string;

  /** The session (also the record key); absent only for service-wide broadcasts and dead letters. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  subject?: string;

  @IsOptional()
  @Equals(DATA_CONTENT_TYPE, { message: `must be "${DATA_CONTENT_TYPE}" (kpm carries JSON data)` })
  datacontenttype?: string;

  @IsOptional()
  @IsString()
  dataschema?: string;
}

/** A CloudEvent as it travels: the attributes plus `data`. */
export interface CloudEvent<T = unknown, K extends string = string> {
  specversion: '1.0';
  id: string;
  source: string;
  type: K;
  time?: string;
  subject?: string;
  datacontenttype?: string;
  dataschema?: string;
  /** CloudEvents' distributed-tracing extension (trace-context.ts), when the cause had one. */
  traceparent?: string;
  data: T;
}
