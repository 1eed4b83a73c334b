/**
 * A dead letter on `kpm.dead-letters` that is a valid command some consumer (the boot-worker)
 * gave up on after its retries (docs/design.md §3.3, §6.6): the state service completes that
 * command as `failed`, so every command gets its one completion. Dead letters of anything else
 * (records that were no CloudEvent, facts) are for operators only.
 */
import {
  DeadLetterType,
  parseRecord,
  topicName,
  traceparentOf,
  type KpmEvent,
} from '@kpm/contracts';
import type { InboundRecord } from '@kpm/kafka';
import type { AbandonedCommand } from '../domain/answered-commands';
import { timeOf } from './fact-time';

interface AbandonedCommandRecord {
  abandoned: AbandonedCommand;
  session: string;
  time: number;
  traceparent?: string;
}

export function abandonedCommandOf(
  record: InboundRecord,
  topicPrefix: string,
  maxBytes: number,
): AbandonedCommandRecord | undefined {
  const letter = parseRecord(record.value, { topic: record.topic });
  if (!letter.ok || letter.event.type !== DeadLetterType.deadLetter) return undefined;
  const { source, valueBase64, headers, reason } = letter.event.data;
  const commands = topicName('commands', topicPrefix);
  if (source.topic !== commands || valueBase64 === undefined) return undefined;
  const command = parseRecord(Buffer.from(valueBase64, 'base64'), {
    topic: commands,
    maxBytes,
    headers,
  });
  if (!command.ok) return undefined; // no command id to answer, or already rejected
  const event: KpmEvent = command.event;
  return {
    abandoned: { commandId: event.id, commandType: event.type, reason },
    session: event.subject ?? record.key ?? '',
    time: timeOf(letter.event.time, record),
    traceparent: traceparentOf(event),
  };
}
