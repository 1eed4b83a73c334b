/**
 * The domain's effects as Kafka records. Session-keyed outputs are pinned to the partition
 * number of the input that caused them, so a partition's owner finds its own completions on
 * that number when it restores; `kpm.processes` is keyed by uuid and carries the partition
 * number in a header instead.
 */
import {
  buildEvent,
  completionEventId,
  CompletionType,
  encodeEvent,
  eventId,
  processTombstone,
  ProcessTableType,
  topicName,
  type CommandCompleted,
  type ProcessInstance,
} from '@kpm/contracts';
import type { TransactionalRecord } from '@kpm/kafka';
import type { Broadcaster } from '@kpm/service-kit';
import type { Effect } from '../domain/effects';

/** Header on `kpm.processes` records: the partition number of the session that owns them. */
export const SHARD_HEADER = 'kpm-shard';

export class EffectRecords {
  constructor(
    private readonly topicPrefix: string,
    private readonly source: string,
    private readonly broadcaster: Broadcaster,
  ) {}

  encode(partition: number, effects: readonly Effect[]): TransactionalRecord[] {
    return effects.flatMap((effect) => this.record(partition, effect));
  }

  private record(partition: number, effect: Effect): TransactionalRecord[] {
    switch (effect.kind) {
      case 'completion':
        return [this.completion(partition, effect.completion)];
      case 'broadcast': {
        const { id, broadcastType, text, session, data } = effect;
        const encoded = this.broadcaster.encode({
          id,
          broadcastType,
          text,
          data,
          session: session || undefined,
        });
        return [{ topic: this.topic('broadcast'), partition, ...encoded }];
      }
      case 'process':
        return [this.processRow(partition, effect.instance)];
      case 'tombstone':
        return [this.shardRow(partition, processTombstone(effect.uuid))];
      case 'death':
        return []; // DUNE's feeds only (src/feeds/feed-records.ts)
      case 'command': {
        // An automatic restart or terminate (exit-actions.ts): on the session's partition number,
        // where the boot-worker takes it as any command and this shard sees it come back.
        const { id, commandType, session, data } = effect;
        const event = buildEvent({
          id,
          type: commandType,
          source: this.source,
          subject: session,
          data,
        });
        return [{ topic: this.topic('commands'), partition, ...encodeEvent(event) }];
      }
    }
  }

  private completion(partition: number, completion: CommandCompleted): TransactionalRecord {
    const event = buildEvent({
      id: completionEventId(completion.commandId),
      type: CompletionType.commandCompleted,
      source: this.source,
      subject: completion.session || undefined,
      data: completion,
    });
    return { topic: this.topic('completions'), partition, ...encodeEvent(event) };
  }

  private processRow(partition: number, instance: ProcessInstance): TransactionalRecord {
    const event = buildEvent({
      // One id per state of one pod (and step of its automatic action): a re-write after a
      // crash is recognisable.
      id: eventId(
        'process-instance',
        instance.uuid,
        instance.podUid,
        instance.statusCode,
        ...automaticStep(instance),
      ),
      type: ProcessTableType.processInstance,
      source: this.source,
      subject: instance.description.metadata.session,
      data: instance,
    });
    return this.shardRow(partition, encodeEvent(event));
  }

  /** A `kpm.processes` record (keyed by uuid) with its session's partition number in a header. */
  private shardRow(
    partition: number,
    encoded: Pick<TransactionalRecord, 'key' | 'value'> & { headers: Record<string, string> },
  ): TransactionalRecord {
    return {
      topic: this.topic('processes'),
      ...encoded,
      headers: { ...encoded.headers, [SHARD_HEADER]: String(partition) },
    };
  }

  private topic(id: 'completions' | 'broadcast' | 'processes' | 'commands'): string {
    return topicName(id, this.topicPrefix);
  }
}

/** The automatic action a row's state includes, as id parts (none without one). */
function automaticStep(instance: ProcessInstance): string[] {
  const last = instance.automatic?.last;
  return last ? [last.podUid, last.outcome] : [];
}
