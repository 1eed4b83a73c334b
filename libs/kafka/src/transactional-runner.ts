/**
 * Exactly-once consume-transform-produce for state that is sharded by partition number.
 *
 * - The group uses the co-partitioned assigner: one member owns partition p of every input.
 * - Each owned p gets its own transactional producer (`<transactionalIdPrefix>-<p>`). Starting
 *   it fences a previous owner (a zombie after a rebalance, or this service before a crash) and
 *   aborts its open transaction, so only one writer for p exists at a time.
 * - Before p is processed, the handler restores its state (reading what was committed); see
 *   partition-restore.ts.
 * - Each batch of one input partition is applied and its outputs are written in one transaction
 *   together with the batch's offsets (`sendOffsets`): outputs and progress commit or vanish
 *   together. Consumers of the outputs read committed.
 * - Work p has of its own (a deadline, a snapshot) runs when the handler says it is due
 *   (`nextWake`), in p's transaction order, in a transaction of its own (`wake`). The runner
 *   drives every transaction; the handler never holds the runner.
 * - A failed transaction voids p's in-memory state: it is restored again before more input.
 */
import type { Consumer, EachBatchPayload } from 'kafkajs';
import {
  errorText as message,
  logEvent,
  systemClock,
  type BackoffPolicy,
  type Clock,
  type LogEvent,
} from '@kpm/common';
import { inSpans, SpanKind, tracingEnabled } from '@kpm/tracing';
import { CoPartitionedAssigner } from './co-partitioned-assigner';
import { fetchCommittedOffsets } from './committed-offsets';
import type { RunnerLogger } from './consumer-runner';
import { whileHeartbeating } from './heartbeats';
import { toInboundRecord, type InboundRecord } from './inbound-record';
import type { KafkaClient } from './kafka-client';
import { PartitionOwners, type PartitionOwner } from './partition-owner';
import { restorePartitions } from './partition-restore';
import { PartitionReset } from './partition-reset';
import type { PartitionStateHandler } from './partition-state-handler';
import { runnerReadiness } from './runner-readiness';

export interface TransactionalRunnerOptions {
  kafka: KafkaClient;
  groupId: string;
  topics: readonly string[];
  handler: PartitionStateHandler;
  transactionalIdPrefix: string;
  transactionTimeoutMs?: number;
  /** How long a crashed member keeps its partitions; heartbeats go every third of it. */
  sessionTimeoutMs?: number;
  heartbeatEveryMs?: number;
  logger?: RunnerLogger & { log(entry: LogEvent): void };
  /** Waits between attempts to restore partitions (default 0.5 s doubling up to 15 s). */
  restoreBackoff?: BackoffPolicy;
  /** Called whenever readiness changes: in the group and every owned partition restored. */
  onReadiness?: (ready: boolean, detail: string) => void;
  /** When the handler's wakes are due (default: the system clock). */
  clock?: Clock;
  /**
   * A record's creation context (its `traceparent`), read only while tracing is on: each
   * transaction is a span in the trace of every command its batch carries.
   */
  traceOf?: (record: InboundRecord) => string | undefined;
  /** Told of each committed batch: how long the handler took, and the transaction after it. */
  onTransaction?: (timing: TransactionTiming) => void;
}

/** One committed input batch's time, split where the handler's work ends and Kafka's begins. */
export interface TransactionTiming {
  /** The handler's `process`: decoding and the domain's decisions. */
  processMs: number;
  /** Producing the outputs and committing the transaction with the offsets. */
  commitMs: number;
}

/** Why p's last transaction failed, and the input batch it carried, if any (not a timer's). */
interface FailedTransaction {
  why: string;
  batch?: { topic: string; lastOffset: bigint };
}

export class TransactionalRunner {
  private readonly owners: PartitionOwners;
  private assigned = new Set<number>();
  private consumer?: Consumer;
  private joined = false;
  private crashed?: string;
  private restarting?: string;
  /** Partitions whose last transaction failed, until it is known to have taken effect. */
  private readonly failing = new Map<number, FailedTransaction>();
  /** Each owned partition's next wake, cancelled when another is set or p is dropped. */
  private readonly wakes = new Map<number, AbortController>();
  private readonly stopping = new AbortController();
  private readonly clock: Clock;

  constructor(private readonly options: TransactionalRunnerOptions) {
    this.owners = new PartitionOwners(options.kafka, {
      transactionalIdPrefix: options.transactionalIdPrefix,
      transactionTimeoutMs: options.transactionTimeoutMs ?? 60_000,
    });
    this.clock = options.clock ?? systemClock;
  }

  /** The partition numbers this member owns and has restored. */
  owned(): number[] {
    return this.owners
      .all()
      .filter((o) => o.restored)
      .map((o) => o.partition);
  }

  async start(): Promise<void> {
    const { kafka, groupId, topics } = this.options;
    const consumer = kafka.consumer({
      groupId,
      partitionAssigners: [CoPartitionedAssigner],
      sessionTimeout: this.options.sessionTimeoutMs ?? 30_000,
      heartbeatInterval: Math.floor((this.options.sessionTimeoutMs ?? 30_000) / 3),
      maxWaitTimeInMs: 500,
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => this.assign(payload.memberAssignment));
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      // kafkajs restarts after retriable errors (not ready until it rejoins); otherwise the
      // member is gone: say so on /readyz.
      this.joined = false;
      if (payload.restart) this.restarting = message(payload.error);
      else this.crashed = message(payload.error);
      this.report();
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [...topics], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: Math.max(1, topics.length * 6),
      eachBatch: (payload) => this.consumeBatch(payload),
    });
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.consumer?.disconnect();
    await Promise.all(this.owners.partitions().map((p) => this.drop(p)));
  }

  private assign(assignment: Record<string, number[]>): void {
    this.joined = true;
    this.crashed = undefined;
    this.restarting = undefined;
    const now = new Set(Object.values(assignment).flat());
    const owned = this.owners.partitions();
    const lost = owned.filter((p) => !now.has(p));
    const gained = [...now].filter((p) => !owned.includes(p));
    this.assigned = now;
    this.options.logger?.log(
      logEvent('partitions.assigned', { partitions: [...now].sort((a, b) => a - b) }),
    );
    for (const p of lost) {
      this.failing.delete(p);
      void this.drop(p);
    }
    if (gained.length > 0) this.restore(gained);
    this.report();
  }

  /** Creates owners for `partitions` and restores them together (one read of the history). */
  private restore(partitions: number[]): void {
    const { kafka, groupId, topics, handler, logger, restoreBackoff } = this.options;
    let settle!: () => void;
    const ready = new Promise<void>((resolve) => (settle = resolve));
    const inputs = {
      owners: this.owners,
      handler,
      groupId,
      committed: (ps: readonly number[]) => fetchCommittedOffsets(kafka, groupId, topics, ps),
      signal: this.stopping.signal,
      backoff: restoreBackoff,
      logger,
    };
    void restorePartitions(inputs, this.owners.create(partitions, ready))
      .then((restored) => {
        for (const owner of restored) this.scheduleWake(owner);
        this.restored();
      })
      .finally(settle);
  }

  private async consumeBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    // A member that was stalled (a zombie) learns here that its group moved on, before it acts.
    await payload.heartbeat();
    const owner = await this.restoredOwner(batch.partition, payload);
    if (!owner) return;
    const from = owner.next.get(batch.topic) ?? 0n;
    const fresh = batch.messages.filter((m) => BigInt(m.offset) >= from);
    const last = batch.messages[batch.messages.length - 1];
    if (fresh.length === 0) {
      // Already applied before a restore: only the consumer's position moves.
      if (last) payload.resolveOffset(last.offset);
      return;
    }
    const records = fresh.map((m) => toInboundRecord(batch.topic, owner.partition, m));
    await this.beating(payload, () =>
      owner.enqueue(() => this.applyBatch(owner, records, last.offset, payload)),
    );
  }

  /**
   * p's owner once its restore finished; undefined when p is not ours (any more), its restore
   * started over, or the batch went stale: the batch then stays unresolved and is fetched again.
   */
  private async restoredOwner(
    p: number,
    payload: EachBatchPayload,
  ): Promise<PartitionOwner | undefined> {
    if (!this.owners.get(p)) {
      if (!this.assigned.has(p)) return undefined; // never fence the real owner for it
      this.restore([p]); // ours, but its state was dropped after a failure
    }
    let owner = this.owners.get(p)!;
    for (;;) {
      await this.beating(payload, () => owner.ready);
      const current = this.owners.get(p);
      if (current === owner) break;
      if (!current || !payload.isRunning() || payload.isStale()) return undefined;
      owner = current;
    }
    if (!payload.isRunning() || payload.isStale() || !owner.restored) return undefined;
    return owner;
  }

  /** One transaction: the handler's outputs and the offset after the batch, or neither. */
  private async applyBatch(
    owner: PartitionOwner,
    records: readonly InboundRecord[],
    lastOffset: string,
    payload: Pick<EachBatchPayload, 'resolveOffset'>,
  ): Promise<void> {
    const p = owner.partition;
    const topic = records[0].topic;
    if (this.owners.get(p) !== owner) {
      throw new PartitionReset(p, 'its state was restored again; the batch is fetched again');
    }
    try {
      const nextOffset = (BigInt(lastOffset) + 1n).toString();
      let processMs = 0;
      const started = performance.now();
      await inSpans('transaction', this.tracesOf(records), transactionSpan(p, records), () => {
        const outputs = this.options.handler.process(p, records);
        processMs = performance.now() - started;
        return owner.commit(this.options.groupId, outputs, { topic, offset: nextOffset });
      });
      const commitMs = performance.now() - started - processMs;
      this.options.handler.committed?.(p);
      this.options.onTransaction?.({ processMs, commitMs });
      owner.next.set(topic, BigInt(nextOffset));
      payload.resolveOffset(lastOffset);
      if (this.failing.delete(p)) this.report();
      this.scheduleWake(owner);
    } catch (error) {
      await this.fail(owner, error, { topic, lastOffset: BigInt(lastOffset) });
      // Retriable: kafkajs fetches the batch again from the last committed offset.
      throw new PartitionReset(p, error);
    }
  }

  private tracesOf(records: readonly InboundRecord[]): (string | undefined)[] {
    const { traceOf } = this.options;
    return traceOf && tracingEnabled() ? records.map(traceOf) : [];
  }

  /** Sets p's next wake from the handler: its own work, run when due in p's transaction order. */
  private scheduleWake(owner: PartitionOwner): void {
    const p = owner.partition;
    this.wakes.get(p)?.abort();
    this.wakes.delete(p);
    const at = this.options.handler.nextWake?.(p);
    if (at === undefined || !this.owners.isCurrent(owner)) return;
    const cancel = new AbortController();
    this.wakes.set(p, cancel);
    void this.clock.sleep(Math.max(0, at - this.clock.now()), cancel.signal).then(() => {
      if (cancel.signal.aborted || !this.owners.isCurrent(owner)) return;
      this.wakes.delete(p);
      void owner.enqueue(() => this.wake(owner));
    });
  }

  /** p's own work in a transaction of its own (no offsets), then its next wake. */
  private async wake(owner: PartitionOwner): Promise<void> {
    const { handler, groupId } = this.options;
    if (!this.owners.isCurrent(owner) || !handler.wake) return;
    try {
      await owner.commit(groupId, await handler.wake(owner.partition, owner.next));
    } catch (error) {
      return this.fail(owner, error);
    }
    handler.committed?.(owner.partition);
    this.scheduleWake(owner);
  }

  private beating<T>(payload: Pick<EachBatchPayload, 'heartbeat'>, work: () => Promise<T>) {
    const { heartbeatEveryMs = 1_000 } = this.options;
    return whileHeartbeating(
      () => payload.heartbeat(),
      heartbeatEveryMs,
      work,
      (e) => this.heartbeatFailed(e),
    );
  }

  /** A failed transaction leaves p's memory ahead of Kafka: forget it and restore again. */
  private async fail(
    owner: PartitionOwner,
    error: unknown,
    batch?: FailedTransaction['batch'],
  ): Promise<void> {
    if (!this.owners.isCurrent(owner)) return;
    this.failing.set(owner.partition, { why: message(error).slice(0, 512), batch });
    this.options.logger?.error(
      logEvent('transaction.failed', { partition: owner.partition, error: message(error) }),
    );
    await this.drop(owner.partition);
    if (this.assigned.has(owner.partition) && !this.stopping.signal.aborted)
      this.restore([owner.partition]);
    this.report();
  }

  private async drop(partition: number): Promise<void> {
    this.wakes.get(partition)?.abort();
    this.wakes.delete(partition);
    const owner = this.owners.remove(partition);
    if (!owner) return;
    this.options.handler.release(partition);
    await owner.producer.disconnect().catch(() => undefined);
  }

  /**
   * After a restore, a failure is over when it no longer holds anything up: a timer's work is
   * re-armed by the restore itself, and a batch whose commit failed may in fact have committed
   * (the broker died after writing the commit, before answering): the committed offset, read by
   * the restore, then lies past it and no input is waiting. Otherwise the batch is fetched again
   * and the partition stays not ready until it commits.
   */
  private restored(): void {
    for (const [p, { batch }] of this.failing) {
      const owner = this.owners.get(p);
      if (!owner?.restored) continue;
      if (!batch || (owner.next.get(batch.topic) ?? 0n) > batch.lastOffset) this.failing.delete(p);
    }
    this.report();
  }

  private heartbeatFailed(error: unknown): void {
    this.options.logger?.warn(logEvent('consumer.heartbeat_failed', { error: message(error) }));
  }

  private report(): void {
    const restoring = this.owners
      .all()
      .filter((o) => !o.restored)
      .map((o) => o.partition);
    const { ready, detail } = runnerReadiness({
      joined: this.joined,
      crashed: this.crashed,
      restarting: this.restarting,
      failing: new Map([...this.failing].map(([p, { why }]) => [p, why])),
      restoring,
      owned: this.owned(),
    });
    this.options.onReadiness?.(ready, detail);
  }
}

/** A transaction's span: the partition and the batch it applies. */
function transactionSpan(partition: number, records: readonly InboundRecord[]) {
  return {
    kind: SpanKind.CONSUMER,
    attributes: {
      'messaging.system': 'kafka',
      'messaging.operation.type': 'process',
      'messaging.destination.name': records[0].topic,
      'messaging.destination.partition.id': String(partition),
      'messaging.batch.message_count': records.length,
      'messaging.kafka.offset': Number(records[0].offset),
    },
  };
}
