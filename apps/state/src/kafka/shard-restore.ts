/**
 * Rebuilds the shards of the partitions assigned together, in one read of the history:
 * 1. the completions of those partitions (to the end) → the commands already answered;
 * 2. `kpm.processes` (to the end) → the table, rows of those partitions by their header;
 * 3. `kpm.process-events` and `kpm.terminations` of those partitions, up to the committed
 *    offsets → the open aggregates and their deadlines. Facts past the committed offsets come
 *    through the consumer as usual.
 * Completions and rows are applied batch by batch as they are read; the facts, which must come
 * after both, are kept as read (bytes) and replayed in slices that give the event loop back
 * (heartbeats, liveness, HTTP) every `SLICE_MS`.
 */
import { CompletionType, parseRecord, ProcessTableType, topicName } from '@kpm/contracts';
import { EventLoopSlices } from '@kpm/common';
import type { KpmSettings } from '@kpm/config';
import {
  readPartitionHistory,
  type CommittedOffsets,
  type InboundRecord,
  type KafkaClient,
} from '@kpm/kafka';
import type { Effect } from '../domain/effects';
import type { StateShard } from '../domain/state-shard';
import { SHARD_HEADER } from './effect-records';
import { timeOf } from './fact-time';

/** Longest stretch of replay between two turns of the event loop. */
export const SLICE_MS = 20;

/** The facts read for the restored partitions, in the order they are replayed. */
interface Facts {
  facts: InboundRecord[];
  terminations: InboundRecord[];
}

export class ShardRestore {
  constructor(
    private readonly settings: KpmSettings,
    private readonly kafka: KafkaClient,
    private readonly groupId: string,
  ) {}

  async run(
    shards: Map<number, StateShard>,
    committed: CommittedOffsets,
  ): Promise<Map<number, Effect[]>> {
    const partitions = [...shards.keys()];
    for (const shard of shards.values()) shard.beginRestore();
    const history = await this.read(shards, committed);
    const effects = new Map<number, Effect[]>(partitions.map((p) => [p, []]));
    await replaySliced([...history.facts, ...history.terminations], (record) => {
      const shard = shards.get(record.partition);
      if (shard) effects.get(record.partition)!.push(...replayRecord(this.settings, shard, record));
    });
    for (const [p, shard] of shards) effects.get(p)!.push(...shard.endRestore());
    return effects;
  }

  private async read(shards: Map<number, StateShard>, committed: CommittedOffsets): Promise<Facts> {
    const prefix = this.settings.kafka.topicPrefix;
    const topic = {
      completions: topicName('completions', prefix),
      processes: topicName('processes', prefix),
      facts: topicName('process-events', prefix),
      terminations: topicName('terminations', prefix),
    };
    const found: Facts = { facts: [], terminations: [] };
    const partitions = [...shards.keys()];
    const all = Array.from({ length: this.settings.kafka.partitions }, (_, p) => p);
    const upTo = (name: string) => committed.get(name) ?? new Map<number, string>();
    await readPartitionHistory(
      this.kafka,
      [
        { topic: topic.completions, partitions, until: 'end' },
        { topic: topic.processes, partitions: all, until: 'end' },
        { topic: topic.facts, partitions, until: upTo(topic.facts) },
        { topic: topic.terminations, partitions, until: upTo(topic.terminations) },
      ],
      (record) => {
        if (record.topic === topic.processes) this.loadRow(shards, record);
        else if (record.topic === topic.completions) this.markCompleted(shards, record);
        else if (record.topic === topic.facts) found.facts.push(record);
        else found.terminations.push(record);
      },
      { label: `${this.groupId}-restore`, timeoutMs: this.settings.state.restoreTimeoutMs },
    );
    return found;
  }

  private markCompleted(shards: Map<number, StateShard>, record: InboundRecord): void {
    const shard = shards.get(record.partition);
    if (!shard) return;
    const parsed = parse(this.settings, record);
    if (parsed.ok && parsed.event.type === CompletionType.commandCompleted)
      shard.markCompleted(parsed.event.data.commandId);
  }

  private loadRow(shards: Map<number, StateShard>, record: InboundRecord): void {
    const shard = shards.get(Number(record.headers[SHARD_HEADER]));
    if (!shard || record.key === null) return;
    if (record.value === null) return shard.table.forget(record.key);
    const parsed = parse(this.settings, record);
    if (parsed.ok && parsed.event.type === ProcessTableType.processInstance)
      shard.table.load(parsed.event.data);
  }
}

/** One fact of the history applied to its shard (a restore publishes only due completions). */
export function replayRecord(
  settings: KpmSettings,
  shard: StateShard,
  record: InboundRecord,
): Effect[] {
  const parsed = parse(settings, record);
  return parsed.ok ? shard.apply(parsed.event, timeOf(parsed.event.time, record)) : [];
}

/** Calls `each` on every record in order, giving the event loop a turn every `sliceMs`. */
export async function replaySliced(
  records: readonly InboundRecord[],
  each: (record: InboundRecord) => void,
  sliceMs = SLICE_MS,
): Promise<void> {
  const slices = new EventLoopSlices(sliceMs);
  for (const record of records) {
    each(record);
    await slices.next();
  }
}

function parse(settings: KpmSettings, record: InboundRecord) {
  return parseRecord(record.value, {
    topic: record.topic,
    maxBytes: settings.kafka.maxRecordBytes,
  });
}
