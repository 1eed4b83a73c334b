/**
 * Rebuilds the shards of the partitions assigned together, in one read of the history:
 * 1. the completions of those partitions (to the end) → the commands already answered;
 * 2. `kpm.processes` (to the end) → the table, rows of those partitions by their header;
 * 3. `kpm.process-events` and `kpm.terminations` of those partitions, up to the committed
 *    offsets → the open aggregates and their deadlines. Facts past the committed offsets come
 *    through the consumer as usual.
 */
import { CompletionType, parseRecord, ProcessTableType, topicName } from '@kpm/contracts';
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

/** What the history holds for the restored partitions, by topic. */
interface History {
  completions: InboundRecord[];
  processes: InboundRecord[];
  facts: InboundRecord[];
  terminations: InboundRecord[];
}

/** Restored shards and, per partition, what they must publish first. */
export interface RestoredShards {
  shards: Map<number, StateShard>;
  effects: Map<number, Effect[]>;
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
    const history = await this.read(partitions, committed);
    for (const record of history.completions) this.markCompleted(shards, record);
    for (const record of history.processes) this.loadRow(shards, record);
    const effects = new Map<number, Effect[]>(partitions.map((p) => [p, []]));
    for (const record of [...history.facts, ...history.terminations]) {
      effects.get(record.partition)!.push(...this.replay(shards.get(record.partition)!, record));
    }
    for (const [p, shard] of shards) effects.get(p)!.push(...shard.endRestore());
    return effects;
  }

  private markCompleted(shards: Map<number, StateShard>, record: InboundRecord): void {
    const parsed = this.parse(record);
    if (parsed.ok && parsed.event.type === CompletionType.commandCompleted) {
      shards.get(record.partition)?.markCompleted(parsed.event.data.commandId);
    }
  }

  private loadRow(shards: Map<number, StateShard>, record: InboundRecord): void {
    const shard = shards.get(Number(record.headers[SHARD_HEADER]));
    if (!shard || record.key === null) return;
    if (record.value === null) return shard.table.forget(record.key);
    const parsed = this.parse(record);
    if (parsed.ok && parsed.event.type === ProcessTableType.processInstance)
      shard.table.load(parsed.event.data);
  }

  private replay(shard: StateShard, record: InboundRecord): Effect[] {
    const parsed = this.parse(record);
    return parsed.ok ? shard.apply(parsed.event, timeOf(parsed.event.time, record)) : [];
  }

  private parse(record: InboundRecord) {
    return parseRecord(record.value, {
      topic: record.topic,
      maxBytes: this.settings.kafka.maxRecordBytes,
    });
  }

  private async read(partitions: readonly number[], committed: CommittedOffsets): Promise<History> {
    const prefix = this.settings.kafka.topicPrefix;
    const topic = {
      completions: topicName('completions', prefix),
      processes: topicName('processes', prefix),
      facts: topicName('process-events', prefix),
      terminations: topicName('terminations', prefix),
    };
    const found: History = { completions: [], processes: [], facts: [], terminations: [] };
    const wanted = new Set(partitions);
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
        if (record.topic === topic.processes) {
          if (wanted.has(Number(record.headers[SHARD_HEADER]))) found.processes.push(record);
        } else if (record.topic === topic.completions) found.completions.push(record);
        else if (record.topic === topic.facts) found.facts.push(record);
        else found.terminations.push(record);
      },
      { label: `${this.groupId}-restore`, timeoutMs: this.settings.state.restoreTimeoutMs },
    );
    return found;
  }
}
