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
} from '@kpm/contracts';
import { Batcher } from '@kpm/common';
import type { BootFailure, BootOutcome } from '../boot/boot-failure';
import type { PlannedProcess } from '../boot/planned-process';
import type { BootContext } from '../boot/pod-builder';
import type { FactSink } from './fact-sink';
import { runningInstance } from './process-instance';

/** The environment a booted process runs with (the pod builder's rule), for its ProcessInstance. */
type EnvOf = (process: PlannedProcess, user: string) => Record<string, string>;

export class ProcessFacts {
  constructor(
    private readonly source: string,
    private readonly sink: FactSink,
    private readonly envOf: EnvOf,
  ) {}

  /** Sends the records; resolves on the broker's acknowledgement. */
  send(...records: EncodedRecord[]): Promise<void> {
    return this.sink.send(records);
  }

  /**
   * A batcher for the facts of a long command: one broker round trip per batch rather than per
   * process, yet facts go out while the command runs. Its `flushed()` reports a failed send, so
   * the command fails (and is redelivered) instead of losing facts.
   */
  batcher(options: { maxBatch: number; onSent: () => void }): Batcher<EncodedRecord> {
    return new Batcher({
      send: (records) => this.sink.send(records),
      maxItems: options.maxBatch,
      onSent: options.onSent,
    });
  }

  bootAccepted(subject: string, data: BootAccepted): EncodedRecord {
    return this.encode(
      ProcessEventType.bootAccepted,
      eventId('boot.accepted', data.commandId),
      subject,
      data,
    );
  }

  /** `process.booted` or `process.boot-failed` for one process of a boot or restart. */
  bootOutcome(
    subject: string,
    process: PlannedProcess,
    context: BootContext,
    outcome: BootOutcome,
  ): EncodedRecord {
    if (!outcome.ok) return this.bootFailed(subject, process, context, outcome);
    const env = this.envOf(process, context.user);
    const instance = runningInstance(process, outcome.pod, { ...context, env });
    const { commandId } = context;
    const id = eventId('process.booted', commandId, process.uuid);
    return this.encode(ProcessEventType.processBooted, id, subject, {
      commandId,
      process: instance,
    });
  }

  bootFailed(
    subject: string,
    process: PlannedProcess,
    context: BootContext,
    failure: BootFailure,
  ): EncodedRecord {
    const { commandId, session } = context;
    const id = eventId('process.boot-failed', commandId, process.uuid);
    return this.encode(ProcessEventType.processBootFailed, id, subject, {
      commandId,
      uuid: process.uuid,
      name: process.spec.name,
      session,
      error: { code: failure.code, message: failure.message },
    });
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
