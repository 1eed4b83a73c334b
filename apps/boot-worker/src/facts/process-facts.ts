/**
 * The boot-worker's facts on `kpm.process-events` (docs/design.md §5.1), each with an id derived
 * from the command id (and the process uuid), so a redelivered command re-emits the same ids and
 * consumers de-duplicate. The subject is the command's subject: a command's facts share its
 * record key and so its partition.
 */
import {
  buildEvent,
  encodeEvent,
  eventId,
  ProcessEventType,
  type BootAccepted,
  type EncodedRecord,
  type KillAccepted,
  type KpmEvent,
  type ProcessBootFailed,
  type ProcessInstance,
} from '@kpm/contracts';

export class ProcessFacts {
  constructor(private readonly source: string) {}

  bootAccepted(subject: string, data: BootAccepted): EncodedRecord {
    return this.encode(
      ProcessEventType.bootAccepted,
      eventId('boot.accepted', data.commandId),
      subject,
      data,
    );
  }

  processBooted(subject: string, commandId: string, process: ProcessInstance): EncodedRecord {
    const id = eventId('process.booted', commandId, process.uuid);
    return this.encode(ProcessEventType.processBooted, id, subject, { commandId, process });
  }

  processBootFailed(subject: string, data: ProcessBootFailed): EncodedRecord {
    const id = eventId('process.boot-failed', data.commandId, data.uuid);
    return this.encode(ProcessEventType.processBootFailed, id, subject, data);
  }

  killAccepted(subject: string, data: KillAccepted): EncodedRecord {
    return this.encode(
      ProcessEventType.killAccepted,
      eventId('kill.accepted', data.commandId),
      subject,
      data,
    );
  }

  logsFetched(subject: string, commandId: string, uuid: string, lines: string[]): EncodedRecord {
    const id = eventId('logs.fetched', commandId);
    return this.encode(ProcessEventType.logsFetched, id, subject, { commandId, uuid, lines });
  }

  private encode<K extends ProcessEventType>(
    type: K,
    id: string,
    subject: string,
    data: Parameters<typeof buildEvent<K>>[0]['data'],
  ): EncodedRecord {
    // A generic KpmEvent<K> is one member of the KpmEvent union; TypeScript cannot narrow it here.
    return encodeEvent(buildEvent({ type, id, source: this.source, subject, data }) as KpmEvent);
  }
}
