/**
 * The state service's flow, as its TransactionalRunner drives it (one transaction at a time per
 * partition number p, libs/kafka transactional-runner.ts):
 *   restore(p…)   rebuild p's StateShard from Kafka (ShardRestore); what it found due goes first;
 *   process(p, …) each input record to p's shard (ShardInput), its effects out as records
 *                 (ShardOutput), published with the batch's offsets;
 *   nextWake(p)   when p has work of its own: its next kill deadline, or a snapshot due;
 *   wake(p)       that work: what timed out completes, or p's snapshot is written (ShardSnapshots);
 *   release(p)    p left this replica.
 * `ps` reads every owned shard and, for other sessions, the view (OwnedShards.select).
 */
import { hostname } from 'node:os';
import { Logger, type OnModuleDestroy } from '@nestjs/common';
import { logEvent, systemClock, type Clock } from '@kpm/common';
import { eventSource, type ProcessInstance } from '@kpm/contracts';
import type { KpmSettings } from '@kpm/config';
import {
  consumerGroupId,
  readPartitionHistory,
  SharedAdmin,
  type CommittedOffsets,
  type HistoryReader,
  type InboundRecord,
  type KafkaClient,
  type PartitionStateHandler,
  type TransactionalRecord,
} from '@kpm/kafka';
import type { Broadcaster } from '@kpm/service-kit';
import { shardLimits, StateShard, type OpenCommand } from '../domain/state-shard';
import { FeedRecords, feedsOn } from '../feeds/feed-records';
import type { StateView } from '../view/state-view';
import { EffectRecords } from './effect-records';
import { OwnedShards } from './owned-shards';
import { ShardInput } from './shard-input';
import { ShardOutput } from './shard-output';
import { ShardRestore, type RestoredShards } from './shard-restore';
import { ShardSnapshots, type EndOffsets } from './shard-snapshots';
import type { StateMetrics } from './state-metrics';

/** A deadline's work runs this long after it, so the shard's clock has surely passed it. */
const DEADLINE_MARGIN_MS = 5;

/**
 * What the coordinator reads Kafka through, besides its inputs (`stateKafka`; an in-memory one
 * in the unit tests).
 */
export interface StateKafka {
  readonly readHistory: HistoryReader;
  readonly endOffsets: EndOffsets;
  close(): Promise<void>;
}

/** What the coordinator and the shard parts it builds read of the settings. */
type CoordinatorSettings = Pick<
  KpmSettings,
  'service' | 'instance' | 'kafka' | 'state' | 'feeds' | 'security'
>;

export class StateCoordinator implements PartitionStateHandler, OnModuleDestroy {
  private readonly logger = new Logger(StateCoordinator.name);
  private readonly shards: OwnedShards;
  private readonly input: ShardInput;
  private readonly output: ShardOutput;
  private readonly restorer: ShardRestore;
  private readonly snapshots: ShardSnapshots;
  private readonly newShard: () => StateShard;

  constructor(
    settings: CoordinatorSettings,
    private readonly kafka: StateKafka,
    broadcaster: Broadcaster,
    private readonly view: StateView,
    private readonly metrics: StateMetrics,
    /** The clock of deadlines and snapshots (a test's virtual one, or the system's). */
    private readonly clock: Clock = systemClock,
  ) {
    const groupId = consumerGroupId(settings.kafka.topicPrefix, 'state');
    const source = eventSource(settings.service, settings.instance);
    const records = new EffectRecords(settings.kafka.topicPrefix, source, broadcaster);
    this.shards = new OwnedShards(view);
    // The view's rows of owned sessions share the shards' unchanging parts (view/shared-parts.ts).
    view.shareWith((uuid) => this.shards.instance(uuid));
    this.input = new ShardInput(settings, groupId);
    this.output = new ShardOutput(
      records,
      settings.state.completedCommandsKept,
      (effects) => metrics.count(effects),
      feedsOn(settings.feeds) ? new FeedRecords(settings.feeds, hostname()) : undefined,
    );
    this.restorer = new ShardRestore(settings, kafka.readHistory, groupId);
    this.snapshots = new ShardSnapshots(settings, kafka.endOffsets, this.clock, () =>
      metrics.snapshots.inc(),
    );
    const { operatorUsers } = settings.security;
    const limits = shardLimits(settings.state);
    const now = () => this.clock.now();
    this.newShard = () => new StateShard(now, (q) => this.shards.select(q), operatorUsers, limits);
    metrics.observeShards(() => this.shards.all());
  }

  async onModuleDestroy(): Promise<void> {
    await this.kafka.close();
  }

  owned(): number[] {
    return this.shards.partitions();
  }

  openCommand(commandId: string): OpenCommand | undefined {
    return this.shards.openCommand(commandId);
  }

  /** The processes of the sessions this replica owns (opmon counts them, src/feeds). */
  ownedProcesses(): ProcessInstance[] {
    return this.shards.all().flatMap((shard) => shard.table.all());
  }

  async restore(
    partitions: readonly number[],
    committed: CommittedOffsets,
  ): Promise<Map<number, TransactionalRecord[]>> {
    const started = this.clock.now();
    const restored = await this.restorer.run(partitions, committed, this.newShard);
    const first = new Map<number, TransactionalRecord[]>();
    for (const [p, shard] of restored.shards) {
      this.shards.set(p, shard);
      this.view.shareFrom(shard.table.all());
      first.set(p, this.output.ofRestore(p, restored.effects.get(p)!));
      this.snapshots.restored(p, restored.snapshots.get(p), restored.replayed.get(p)!);
    }
    this.logRestore(partitions, restored, (this.clock.now() - started) / 1000);
    return first;
  }

  process(partition: number, records: readonly InboundRecord[]): TransactionalRecord[] {
    const shard = this.shardOf(partition);
    const out: TransactionalRecord[] = [];
    for (const record of records) {
      const step = this.input.apply(shard, record, out);
      out.push(...this.output.ofRecord(partition, step));
    }
    this.snapshots.applied(partition, records.length);
    return out;
  }

  nextWake(partition: number): number | undefined {
    const deadline = this.shards.get(partition)?.nextDeadline();
    const times = [
      deadline === undefined ? undefined : deadline + DEADLINE_MARGIN_MS,
      this.snapshots.dueAt(partition),
    ].filter((t) => t !== undefined);
    return times.length > 0 ? Math.min(...times) : undefined;
  }

  /** What timed out completes; else, when due, p's snapshot: one kind of work a transaction. */
  async wake(
    partition: number,
    positions: ReadonlyMap<string, bigint>,
  ): Promise<TransactionalRecord[]> {
    const shard = this.shardOf(partition);
    const deadline = shard.nextDeadline();
    if (deadline !== undefined && deadline <= this.clock.now())
      return this.output.ofTime(partition, shard.expire());
    return this.snapshots.takeIfDue(partition, shard, positions);
  }

  /** p's transaction committed: its completions' spans are told (ShardOutput). */
  committed(partition: number): void {
    this.output.committed(partition);
  }

  release(partition: number): void {
    this.shards.delete(partition);
    this.output.release(partition);
    this.snapshots.release(partition);
  }

  private shardOf(partition: number): StateShard {
    const shard = this.shards.get(partition);
    if (!shard) throw new Error(`partition ${partition} is not restored`);
    return shard;
  }

  private logRestore(partitions: readonly number[], restored: RestoredShards, seconds: number) {
    const { shards, snapshots, replayed, steps } = restored;
    const facts = [...replayed.values()].reduce((a, b) => a + b, 0);
    this.metrics.restoreSeconds.observe(seconds);
    this.metrics.restoreReplayed.inc(facts);
    const sizes = [...shards].map(([partition, s]) => ({
      partition,
      processes: s.table.size,
      openCommands: s.openCommands().length,
    }));
    this.logger.log(
      logEvent('shards.restored', {
        partitions,
        durationMs: Math.round(seconds * 1000),
        fromSnapshot: snapshots.size,
        factsReplayed: facts,
        stepsMs: steps,
        shards: sizes,
      }),
    );
  }
}

/** The coordinator's reads on a real cluster. */
export function stateKafka(kafka: KafkaClient): StateKafka {
  const admin = new SharedAdmin(kafka);
  return {
    readHistory: (requests, onRecord, options) =>
      readPartitionHistory(kafka, requests, onRecord, options),
    endOffsets: (topic) => admin.partitionOffsets(topic),
    close: () => admin.close(),
  };
}
