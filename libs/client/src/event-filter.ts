/** Which events a stream delivers: by topic, by session, by type. */
import {
  BroadcastEventType,
  parseRecord,
  type EventType,
  type KpmEvent,
  type TopicId,
} from '@kpm/contracts';
import type { ReceivedRecord } from './transport';

/** What `events()` reads unless told otherwise: what ended, what completed, what was said. */
export const DEFAULT_EVENT_TOPICS: readonly TopicId[] = [
  'terminations',
  'completions',
  'broadcast',
];

export interface EventFilter {
  /** Only this session's events (broadcasts by their emitter's session). */
  session?: string;
  /** Topics to read (without prefix), default {@link DEFAULT_EVENT_TOPICS}. */
  topics?: readonly TopicId[];
  /** Only these CloudEvent types. */
  types?: readonly EventType[];
  /** Replay what the topics retain instead of starting at their end. */
  fromBeginning?: boolean;
}

/** The session an event concerns, as far as it names one. */
export function sessionOfEvent(event: KpmEvent): string | undefined {
  if (event.type === BroadcastEventType.broadcast) {
    return event.data.emitter.session; // a service-wide broadcast's subject is the service
  }
  return event.subject;
}

export function matchesFilter(event: KpmEvent, filter: EventFilter): boolean {
  if (filter.types && !filter.types.includes(event.type)) return false;
  return filter.session === undefined || sessionOfEvent(event) === filter.session;
}

/** A record as a validated event, or undefined for anything that is not a valid kpm event. */
export function eventOf(record: ReceivedRecord): KpmEvent | undefined {
  const parsed = parseRecord(record.value, { topic: record.topic });
  return parsed.ok ? parsed.event : undefined;
}
