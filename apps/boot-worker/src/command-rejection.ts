import {
  buildEvent,
  encodeEvent,
  eventId,
  ProcessEventType,
  type CommandRejected,
  type FieldErrorDetail,
} from '@kpm/contracts';
import type { OutboundRecord } from '@kpm/kafka';

/** What is known of a refused command: its envelope as far as it parsed, and where it sat in Kafka. */
export interface RefusedCommand {
  id?: string;
  type?: string;
  subject?: string;
  key: string | null;
  coordinates: string;
}

/**
 * Builds the `command.rejected` fact for a command that failed validation. A command without a
 * usable id is named by its Kafka coordinates, so it can still be completed exactly once.
 */
export function commandRejectedRecord(
  refused: RefusedCommand,
  errors: readonly FieldErrorDetail[],
  source: string,
): OutboundRecord {
  const commandId = refused.id ?? refused.coordinates;
  const data: CommandRejected = {
    commandId,
    commandType: refused.type ?? '(unknown)',
    errors: [...errors],
  };
  const event = buildEvent({
    id: eventId('command.rejected', commandId),
    type: ProcessEventType.commandRejected,
    source,
    subject: refused.subject ?? refused.key ?? '',
    data,
  });
  return { ...encodeEvent(event), key: refused.subject ?? refused.key ?? '' };
}
