/**
 * Building and encoding records: the producing side of `parse.ts`.
 *
 * `id` is required: callers derive it from the inputs with ids.ts, so that a re-emission after
 * a crash carries the same id and consumers can de-duplicate.
 */
import { CLOUDEVENT_HEADERS, CLOUDEVENTS_SPEC_VERSION, DATA_CONTENT_TYPE } from './envelope';
import type { EventType } from './event-types';
import { typeEntry, type EventDataMap, type KpmEvent } from './registry';
import { TOPICS } from './topics';
import { currentTraceparent } from './trace-context';

/**
 * The CloudEvent `source` of what a kpm producer writes (docs/design.md §3.1): `/kpm/<service>/
 * <instance>`, or `/kpm/cli/<host>` for a client; `part` names a part of a service (a dashboard).
 */
export function eventSource(producer: string, instance: string, part?: string): string {
  return part === undefined
    ? `/kpm/${producer}/${instance}`
    : `/kpm/${producer}/${instance}/${part}`;
}

export interface BuildEventInput<K extends EventType> {
  type: K;
  /** A URI-reference naming the producer, e.g. `/kpm/boot-worker/<host>`. */
  source: string;
  /** The session; required for every type but service-wide broadcasts and dead letters. */
  subject?: string;
  data: EventDataMap[K];
  id: string;
  /** Defaults to now: `time` says when, it is never part of an id. */
  time?: string | Date;
  /** Defaults to the trace of the work running now (trace-context.ts), if any. */
  traceparent?: string;
}

/** A plain CloudEvent object ready for `encodeEvent` (or for JSON over HTTP/SSE). */
export function buildEvent<K extends EventType>(input: BuildEventInput<K>): KpmEvent<K> {
  const time = input.time ?? new Date();
  const traceparent = input.traceparent ?? currentTraceparent();
  const event = {
    specversion: CLOUDEVENTS_SPEC_VERSION,
    id: input.id,
    source: input.source,
    type: input.type,
    time: typeof time === 'string' ? time : time.toISOString(),
    ...(input.subject === undefined ? {} : { subject: input.subject }),
    datacontenttype: DATA_CONTENT_TYPE,
    ...(traceparent === undefined ? {} : { traceparent }),
    data: input.data,
  };
  return event as KpmEvent<K>;
}

/** A Kafka message (kafkajs `Message` shape) for a CloudEvent. */
export interface EncodedRecord {
  key: string | null;
  value: Buffer;
  headers: Record<string, string>;
}

/**
 * The record for `event`: structured JSON value, the cloudevents content-type header, and the
 * key the topic uses (session = subject, process uuid, or a dead letter's original key).
 */
export function encodeEvent(event: KpmEvent): EncodedRecord {
  return {
    key: recordKey(event),
    value: Buffer.from(JSON.stringify(event), 'utf8'),
    headers: { ...CLOUDEVENT_HEADERS },
  };
}

/** The key of `event`'s record, per its topic's key kind (docs/design.md §2). */
export function recordKey(event: KpmEvent): string | null {
  switch (TOPICS[typeEntry(event.type).topic].key) {
    case 'session':
      return event.subject ?? null;
    case 'process-uuid':
      return (event.data as { uuid: string }).uuid;
    case 'original-key':
      return (event.data as { key?: string }).key ?? null;
    case 'shard': // no CloudEvent goes to a snapshot topic
      return null;
  }
}

/** A tombstone for `kpm.processes`: compaction then forgets the flushed process. */
export function processTombstone(uuid: string): {
  key: string;
  value: null;
  headers: Record<string, string>;
} {
  return { key: uuid, value: null, headers: {} };
}
