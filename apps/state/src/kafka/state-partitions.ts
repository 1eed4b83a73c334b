/**
 * The state service's partitions: one StateShard per owned partition number, restored from
 * Kafka when the partition is assigned and fed batch by batch by the TransactionalRunner, whose
 * transactions publish the shard's effects together with the consumed offsets.
 *
 * Restore, for the partitions assigned together (one read of the history):
 * 1. the completions of those partitions (to the end) → the commands already answered;
 * 2. `kpm.processes` (to the end) → the table, rows of those partitions by their header;
 * 3. `kpm.process-events` and `kpm.terminations` of those partitions, up to the committed
 *    offsets → the open aggregates and their deadlines. Facts past the committed offsets come
 *    through the consumer as usual.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import {
  CompletionType,
  parseRecord,
  ProcessTableType,
  topicName,
  type ProcessInstance,
  type ProcessQuery,
} from '@kpm/contracts';
import { KpmSettings } from '@kpm/config';
import {
  deadLetterRecord,
  readPartitionHistory,
  type CommittedOffsets,
  type InboundRecord,
  type PartitionStateHandler,
  type TransactionalRecord,
  type TransactionalRunner,
} from '@kpm/kafka';
import { Broadcaster, KAFKA_CLIENT } from '@kpm/service-kit';
import type { Effect } from '../domain/effects';
import { byName } from '../domain/process-table';
import { StateShard, type OpenCommand } from '../domain/state-shard';
import { StateView } from '../view/state-view';
import { EffectRecords, SHARD_HEADER } from './effect-records';
import { StateMetrics } from './state-metrics';

@Injectable()
export class StatePartitions implements PartitionStateHandler {
  private readonly logger = new Logger(StatePartitions.name);
  private readonly shards = new Map<number, StateShard>();
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private readonly records: EffectRecords;
  private runner?: TransactionalRunner;

  constructor(
    @Inject(KpmSettings) private readonly settings: KpmSettings,
    @Inject(KAFKA_CLIENT) private readonly kafka: Kafka,
    @Inject(Broadcaster) broadcaster: Broadcaster,
    @Inject(StateView) private readonly view: StateView,
    @Inject(StateMetrics) private readonly metrics: StateMetrics,
  ) {
    const source = `/kpm/${settings.service}/${settings.instance}`;
    this.records = new EffectRecords(settings.kafka.topicPrefix, source, broadcaster);
    metrics.observeShards(() => [...this.shards.values()]);
  }

  /** The runner whose transactions publish timer-driven completions. */
  attach(runner: TransactionalRunner): void {
    this.runner = runner;
  }

  owned(): number[] {
    return [...this.shards.keys()].sort((a, b) => a - b);
  }

  openCommand(commandId: string): OpenCommand | undefined {
    for (const shard of this.shards.values()) {
      const open = shard.openCommand(commandId);
      if (open) return open;
    }
    return undefined;
  }

  async restore(
    partitions: readonly number[],
    committed: CommittedOffsets,
  ): Promise<Map<number, TransactionalRecord[]>> {
    const started = Date.now();
    const shards = new Map(
      partitions.map((p) => [p, new StateShard(Date.now, (q) => this.directory(q))]),
    );
    for (const shard of shards.values()) shard.beginRestore();
    const history = await this.readHistory(partitions, committed);
    for (const record of history.completions) {
      const parsed = parseRecord(record.value, {
        topic: record.topic,
        maxBytes: this.settings.kafka.maxRecordBytes,
      });
      if (parsed.ok && parsed.event.type === CompletionType.commandCompleted) {
        shards.get(record.partition)?.markCompleted(parsed.event.data.commandId);
      }
    }
    for (const record of history.processes) this.restoreRow(shards, record);
    const effects = new Map<number, Effect[]>(partitions.map((p) => [p, []]));
    for (const record of [...history.facts, ...history.terminations]) {
      const shard = shards.get(record.partition)!;
      const parsed = parseRecord(record.value, {
        topic: record.topic,
        maxBytes: this.settings.kafka.maxRecordBytes,
      });
      if (parsed.ok)
        effects
          .get(record.partition)!
          .push(...shard.apply(parsed.event, timeOf(parsed.event.time, record)));
    }
    const first = new Map<number, TransactionalRecord[]>();
    for (const [p, shard] of shards) {
      effects.get(p)!.push(...shard.endRestore());
      this.shards.set(p, shard);
      first.set(p, this.records.encode(p, effects.get(p)!));
      this.count(effects.get(p)!);
      this.arm(p);
    }
    const seconds = (Date.now() - started) / 1000;
    this.metrics.restoreSeconds.observe(seconds);
    this.logger.log(
      `restored partitions [${partitions.join(', ')}] in ${seconds.toFixed(2)} s: ` +
        [...shards.values()]
          .map((s) => `${s.table.size} processes/${s.openCommands().length} open`)
          .join(', '),
    );
    return first;
  }

  process(partition: number, records: readonly InboundRecord[]): TransactionalRecord[] {
    const shard = this.shards.get(partition);
    if (!shard) throw new Error(`partition ${partition} is not restored`);
    const out: TransactionalRecord[] = [];
    for (const record of records) {
      const effects = this.apply(shard, record, out);
      this.count(effects);
      out.push(...this.records.encode(partition, effects));
    }
    this.arm(partition);
    return out;
  }

  release(partition: number): void {
    this.shards.delete(partition);
    clearTimeout(this.timers.get(partition));
    this.timers.delete(partition);
  }

  /** ps spans every session: owned shards answer for theirs (fresh), the view for the others. */
  private directory(query: ProcessQuery): ProcessInstance[] {
    const owned = new Set(this.shards.keys());
    const mine = [...this.shards.values()].flatMap((shard) => shard.table.select(query));
    const others = this.view
      .select(query)
      .filter((row) => row.shard === undefined || !owned.has(row.shard))
      .filter((row) => !mine.some((p) => p.uuid === row.instance.uuid))
      .map((row) => row.instance);
    return [...mine, ...others].sort(byName);
  }

  private apply(shard: StateShard, record: InboundRecord, out: TransactionalRecord[]): Effect[] {
    const maxBytes = this.settings.kafka.maxRecordBytes;
    const parsed = parseRecord(record.value, { topic: record.topic, maxBytes, key: record.key });
    if (parsed.ok) return shard.apply(parsed.event, timeOf(parsed.event.time, record));
    const isCommand = record.topic === topicName('commands', this.settings.kafka.topicPrefix);
    // Commands are the boot-worker's to reject or dead-letter; state only says it saw them.
    if (isCommand) {
      if (parsed.kind === 'not-a-cloudevent') return [];
      const { id, type, subject } = parsed.envelope;
      return shard.invalidCommand(id, type, subject ?? record.key ?? '');
    }
    const reason = parsed.kind === 'not-a-cloudevent' ? parsed.reason : 'invalid CloudEvent';
    const errors = parsed.kind === 'invalid' ? parsed.errors : [];
    this.logger.warn(
      `dead-lettering ${record.topic}[${record.partition}]@${record.offset}: ${reason}`,
    );
    out.push({
      topic: topicName('dead-letters', this.settings.kafka.topicPrefix),
      ...deadLetterRecord(record, reason, errors, this.groupId),
    });
    return [];
  }

  private restoreRow(shards: Map<number, StateShard>, record: InboundRecord): void {
    const shard = shards.get(Number(record.headers[SHARD_HEADER]));
    if (!shard || record.key === null) return;
    if (record.value === null) return shard.table.forget(record.key);
    const parsed = parseRecord(record.value, {
      topic: record.topic,
      maxBytes: this.settings.kafka.maxRecordBytes,
    });
    if (parsed.ok && parsed.event.type === ProcessTableType.processInstance)
      shard.table.load(parsed.event.data);
  }

  private async readHistory(partitions: readonly number[], committed: CommittedOffsets) {
    const prefix = this.settings.kafka.topicPrefix;
    const topic = {
      completions: topicName('completions', prefix),
      processes: topicName('processes', prefix),
      facts: topicName('process-events', prefix),
      terminations: topicName('terminations', prefix),
    };
    const found = {
      completions: [] as InboundRecord[],
      processes: [] as InboundRecord[],
      facts: [] as InboundRecord[],
      terminations: [] as InboundRecord[],
    };
    const wanted = new Set(partitions);
    const all = Array.from({ length: this.settings.kafka.partitions }, (_, p) => p);
    await readPartitionHistory(
      this.kafka,
      [
        { topic: topic.completions, partitions, until: 'end' },
        { topic: topic.processes, partitions: all, until: 'end' },
        { topic: topic.facts, partitions, until: committed.get(topic.facts) ?? new Map() },
        {
          topic: topic.terminations,
          partitions,
          until: committed.get(topic.terminations) ?? new Map(),
        },
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

  /** Wakes up at the next kill deadline and completes what timed out, in p's transaction order. */
  private arm(partition: number): void {
    clearTimeout(this.timers.get(partition));
    this.timers.delete(partition);
    const shard = this.shards.get(partition);
    const deadline = shard?.nextDeadline();
    if (!shard || deadline === undefined || !this.runner) return;
    const runner = this.runner;
    const timer = setTimeout(
      () => {
        runner
          .submit(partition, () => {
            if (this.shards.get(partition) !== shard) return [];
            const effects = shard.expire();
            this.count(effects);
            return this.records.encode(partition, effects);
          })
          .catch((error: unknown) =>
            this.logger.error(`timeout of partition ${partition}: ${String(error)}`),
          )
          .finally(() => this.arm(partition));
      },
      Math.max(0, deadline - Date.now()) + 5,
    );
    timer.unref();
    this.timers.set(partition, timer);
  }

  private count(effects: readonly Effect[]): void {
    for (const effect of effects) {
      if (effect.kind === 'completion') {
        this.metrics.completions.inc({
          status: effect.completion.status,
          command: effect.completion.commandType,
        });
      } else if (
        effect.kind === 'broadcast' &&
        effect.broadcastType === 'SUBPROCESS_STATUS_UPDATE'
      ) {
        this.metrics.terminations.inc();
      }
    }
  }

  private get groupId(): string {
    return `${this.settings.kafka.topicPrefix}-state`;
  }
}

/** When a fact happened: its CloudEvent time, else the record's timestamp. */
function timeOf(time: string | undefined, record: InboundRecord): number {
  const parsed = time ? Date.parse(time) : NaN;
  return Number.isNaN(parsed) ? Number(record.timestamp) : parsed;
}
