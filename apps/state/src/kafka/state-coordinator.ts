/**
 * The state service's coordinator: one StateShard per owned partition number, restored from
 * Kafka when the partition is assigned (ShardRestore) and fed batch by batch by the
 * TransactionalRunner (ShardInput), whose transactions publish the shard's effects together with
 * the consumed offsets. Kill deadlines fire through DeadlineTimers, snapshots are written by
 * ShardSnapshots; `ps` asks the ProcessDirectory.
 */
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { withTrace } from '@kpm/contracts';
import { KpmSettings } from '@kpm/config';
import {
  type CommittedOffsets,
  type InboundRecord,
  type KafkaClient,
  type PartitionStateHandler,
  type TransactionalRecord,
  type TransactionalRunner,
} from '@kpm/kafka';
import { Broadcaster, KAFKA_CLIENT } from '@kpm/service-kit';
import type { Effect } from '../domain/effects';
import { shardLimits, StateShard, type OpenCommand, type ShardLimits } from '../domain/state-shard';
import { StateView } from '../view/state-view';
import { CommandTraces } from './command-traces';
import { DeadlineTimers } from './deadline-timers';
import { EffectRecords } from './effect-records';
import { ProcessDirectory } from './process-directory';
import { ShardInput, type ShardStep } from './shard-input';
import { ShardRestore } from './shard-restore';
import { ShardSnapshots } from './shard-snapshots';
import { StateMetrics } from './state-metrics';

@Injectable()
export class StateCoordinator implements PartitionStateHandler, OnModuleDestroy {
  private readonly logger = new Logger(StateCoordinator.name);
  private readonly shards = new Map<number, StateShard>();
  private readonly records: EffectRecords;
  private readonly directory: ProcessDirectory;
  private readonly timers: DeadlineTimers;
  private readonly input: ShardInput;
  private readonly restorer: ShardRestore;
  private readonly snapshots: ShardSnapshots;
  private readonly operators: readonly string[];
  private readonly traces: CommandTraces;
  private readonly limits: ShardLimits;

  constructor(
    @Inject(KpmSettings) settings: KpmSettings,
    @Inject(KAFKA_CLIENT) kafka: KafkaClient,
    @Inject(Broadcaster) broadcaster: Broadcaster,
    @Inject(StateView) view: StateView,
    @Inject(StateMetrics) private readonly metrics: StateMetrics,
  ) {
    const source = `/kpm/${settings.service}/${settings.instance}`;
    const groupId = `${settings.kafka.topicPrefix}-state`;
    this.operators = settings.security.operatorUsers;
    this.records = new EffectRecords(settings.kafka.topicPrefix, source, broadcaster);
    this.directory = new ProcessDirectory(this.shards, view);
    this.timers = new DeadlineTimers(
      (p) => this.shards.get(p),
      (p, shard) => this.publishTraced(p, { effects: shard.expire() }),
    );
    this.input = new ShardInput(settings, groupId);
    this.restorer = new ShardRestore(settings, kafka, groupId);
    this.snapshots = new ShardSnapshots(
      settings,
      kafka,
      (p) => this.shards.get(p),
      () => metrics.snapshots.inc(),
    );
    this.limits = shardLimits(settings.state);
    this.traces = new CommandTraces(settings.state.completedCommandsKept);
    metrics.observeShards(() => [...this.shards.values()]);
  }

  /** The runner whose transactions publish timer-driven completions. */
  attach(runner: TransactionalRunner): void {
    this.timers.attach(runner);
    this.snapshots.attach(runner);
  }

  async onModuleDestroy(): Promise<void> {
    await this.snapshots.close();
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
    const { shards, effects, snapshots, replayed, steps } = await this.restorer.run(
      partitions,
      committed,
      () => new StateShard(Date.now, (q) => this.directory.select(q), this.operators, this.limits),
    );
    const first = new Map<number, TransactionalRecord[]>();
    for (const [p, shard] of shards) {
      this.shards.set(p, shard);
      first.set(p, this.publish(p, effects.get(p)!));
      this.timers.arm(p);
      this.snapshots.restored(p, snapshots.get(p), replayed.get(p)!);
    }
    const seconds = (Date.now() - started) / 1000;
    this.metrics.restoreSeconds.observe(seconds);
    const facts = [...replayed.values()].reduce((a, b) => a + b, 0);
    this.metrics.restoreReplayed.inc(facts);
    this.logger.log(
      `restored partitions [${partitions.join(', ')}] in ${seconds.toFixed(2)} s ` +
        `(${snapshots.size} from a snapshot, ${facts} facts replayed; ${steps}): ` +
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
      const step = this.input.apply(shard, record, out);
      this.traces.remember(partition, step.commandId, step.traceparent);
      out.push(...this.publishTraced(partition, step));
    }
    this.timers.arm(partition);
    this.snapshots.applied(partition, records.length);
    return out;
  }

  release(partition: number): void {
    this.shards.delete(partition);
    this.traces.release(partition);
    this.timers.clear(partition);
    this.snapshots.release(partition);
  }

  /** What a record caused carries its command's trace, else the record's (docs/design.md §3.4). */
  private publishTraced(partition: number, step: ShardStep): TransactionalRecord[] {
    return step.effects.flatMap((effect) =>
      withTrace(this.traces.traceOf(partition, effect, step.traceparent), () =>
        this.publish(partition, [effect]),
      ),
    );
  }

  /** Effects as records, counted in the metrics. */
  private publish(partition: number, effects: readonly Effect[]): TransactionalRecord[] {
    this.metrics.count(effects);
    return this.records.encode(partition, effects);
  }
}
