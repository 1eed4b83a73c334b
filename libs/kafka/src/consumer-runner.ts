import type { Consumer, EachBatchPayload } from 'kafkajs';
import {
  BACKOFF,
  errorText,
  logEvent,
  retry,
  type BackoffPolicy,
  type LogEvent,
} from '@kpm/common';
import { ConsumerHealth, type ConsumerHealthReport } from './consumer-health';
import { deadLetterOrSkip, type DeadLetterSink } from './dead-letter-sink';
import { whileHeartbeating } from './heartbeats';
import { toInboundRecord, type InboundRecord } from './inbound-record';
import { PartitionWork } from './partition-work';
import { PoisonRecordError } from './poison-record';

/** What a handler may do besides its work. */
export interface RecordContext {
  /**
   * Best effort: the consumer keeps its group membership by itself while records are handled
   * (the fetch loop runs on); a failed heartbeat is logged, never thrown at the handler.
   */
  heartbeat(): Promise<void>;
  /** Aborted when the consumer stops or loses the partition; long handlers should give up. */
  signal: AbortSignal;
}

export type RecordHandler = (record: InboundRecord, context: RecordContext) => Promise<void>;

/** Where a runner logs: an event and its fields (`logEvent`). */
export interface RunnerLogger {
  warn(entry: LogEvent): void;
  error(entry: LogEvent): void;
}

export interface ConsumerRunnerOptions {
  consumer: Consumer;
  topics: readonly string[];
  handle: RecordHandler;
  deadLetters: DeadLetterSink;
  /** A valid record whose handler keeps failing is retried this often, then dead-lettered. */
  maxAttempts?: number;
  backoff?: BackoffPolicy;
  /** Partitions handled in parallel: one failing partition never holds up the others. */
  partitionsConsumedConcurrently?: number;
  /**
   * Records of one partition admitted and not yet finished (running, or waiting behind an earlier
   * record of their lane); fetching that partition pauses at the bound.
   */
  maxInFlight?: number;
  /** The lane of a record: one lane's records run one at a time, in order (default: the key). */
  laneOf?: (record: InboundRecord) => string;
  /** Heartbeats are sent this often while the fetch waits for room. */
  heartbeatEveryMs?: number;
  fromBeginning?: boolean;
  logger?: RunnerLogger;
  /** Told whenever the consumer's health changes (in the group, crashing, a record stuck). */
  onHealth?: (report: ConsumerHealthReport) => void;
}

type RunnerSettings = Required<Omit<ConsumerRunnerOptions, 'logger' | 'onHealth'>> & {
  logger?: RunnerLogger;
};

/**
 * At-least-once consumption with per-lane concurrency (docs/design.md §9.2): records of different
 * lanes (sessions) of one partition run concurrently, one lane's records in order; an offset is
 * committed only once every record below it finished, so a crash redelivers every unfinished
 * record. Poison records are dead-lettered and skipped; handler failures back off in their lane.
 */
export class ConsumerRunner {
  private readonly stopping = new AbortController();
  private readonly options: RunnerSettings;
  private readonly partitions = new Map<string, PartitionWork>();
  /** The latest batch's heartbeat per partition: kafkajs offers heartbeats on batches only. */
  private readonly heartbeats = new Map<string, () => Promise<void>>();
  readonly health: ConsumerHealth;

  constructor(options: ConsumerRunnerOptions) {
    this.options = {
      maxAttempts: 8,
      backoff: BACKOFF.recordHandler,
      partitionsConsumedConcurrently: 6,
      maxInFlight: 32,
      laneOf: (record) => record.key ?? '',
      heartbeatEveryMs: 1_000,
      fromBeginning: true,
      ...options,
    };
    this.health = new ConsumerHealth(options.onHealth);
  }

  async start(): Promise<void> {
    const { consumer, topics, fromBeginning, partitionsConsumedConcurrently } = this.options;
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      this.health.joinedGroup();
      this.joined(payload.memberAssignment);
    });
    consumer.on(consumer.events.CRASH, ({ payload }) =>
      this.health.crashed(payload.error, payload.restart),
    );
    await consumer.connect();
    await consumer.subscribe({ topics: [...topics], fromBeginning });
    await consumer.run({
      // Commits follow the lanes' watermark (PartitionWork), not the fetch position.
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently,
      eachBatch: (payload) => this.consumeBatch(payload),
    });
  }

  /** Handlers give up (their records are redelivered), what finished is committed, the group is left. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.all([...this.partitions.values()].map((work) => work.settled()));
    await this.options.consumer.disconnect();
  }

  private async consumeBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const work = this.workOf(batch.topic, batch.partition);
    this.heartbeats.set(`${batch.topic}:${batch.partition}`, () => payload.heartbeat());
    const current = () => payload.isRunning() && !payload.isStale() && !work.signal.aborted;
    for (const message of batch.messages) {
      if (work.full)
        await this.withHeartbeats(
          () => payload.heartbeat(),
          () => work.room(),
        );
      if (!current()) return; // unresolved records are fetched again and admitted then
      const record = toInboundRecord(batch.topic, batch.partition, message);
      work.admit(record, this.options.laneOf(record));
      // The fetch position only: with autoCommit off, kafkajs commits nothing by itself.
      payload.resolveOffset(message.offset);
    }
  }

  private workOf(topic: string, partition: number): PartitionWork {
    const key = `${topic}:${partition}`;
    let work = this.partitions.get(key);
    if (!work) {
      work = this.createWork(topic, partition);
      this.partitions.set(key, work);
    }
    return work;
  }

  private createWork(topic: string, partition: number): PartitionWork {
    const { consumer, logger, maxInFlight } = this.options;
    const warn = (entry: LogEvent) => logger?.warn(entry);
    return new PartitionWork(
      {
        topic,
        partition,
        maxInFlight,
        handle: (record, signal) =>
          this.handleWithRetries(record, this.contextFor(`${topic}:${partition}`, signal)),
        commit: (offset) => consumer.commitOffsets([{ topic, partition, offset }]),
        warn,
        relaunchAfterMs: this.options.backoff.maxMs,
      },
      this.stopping.signal,
    );
  }

  private contextFor(key: string, signal: AbortSignal): RecordContext {
    const { logger } = this.options;
    const heartbeat = () => this.heartbeats.get(key)?.() ?? Promise.resolve();
    return {
      heartbeat: () =>
        heartbeat().catch((error: unknown) =>
          logger?.warn(logEvent('consumer.heartbeat_failed', { error: errorText(error) })),
        ),
      signal,
    };
  }

  /**
   * After each rebalance: the work of partitions this member lost stops and commits nothing more
   * (their new owner redelivers from the watermark); kept partitions commit their watermark again
   * and their commands run on. A partition kept under a new member id (a rejoin after the group
   * coordinator failed over) is kept too: had another member held it meanwhile, the commands
   * both ran are carried out twice, idempotently, as any redelivery is (docs/design.md §9.2).
   */
  private joined(assignment: Record<string, number[]>): void {
    for (const [key, work] of this.partitions) {
      const [topic, partition] = splitKey(key);
      if (assignment[topic]?.includes(partition)) {
        work.recommit();
        continue;
      }
      work.revoke();
      this.partitions.delete(key);
      this.heartbeats.delete(key);
    }
  }

  /** The handler, retried with backoff; poison, and a record it keeps failing on, dead-lettered. */
  private async handleWithRetries(record: InboundRecord, context: RecordContext): Promise<boolean> {
    const { handle, maxAttempts, backoff, logger } = this.options;
    try {
      await retry(() => handle(record, context), {
        backoff,
        attempts: maxAttempts,
        signal: context.signal,
        retryable: (error) => !(error instanceof PoisonRecordError),
        onRetry: (error, attempt) => {
          const reason = errorText(error);
          logger?.warn(logEvent('record.retrying', { ...at(record), attempt, error: reason }));
          this.health.retrying(where(record, false), record.offset, attempt, reason);
        },
      });
    } catch (error) {
      if (error instanceof PoisonRecordError) {
        await this.deadLetter(record, error.reason, error.errors);
      } else {
        if (context.signal.aborted) return false; // given up while stopping: redelivered
        const reason = errorText(error);
        logger?.error(
          logEvent('record.gave_up', { ...at(record), attempts: maxAttempts, error: reason }),
        );
        await this.deadLetter(record, `handler failed after ${maxAttempts} attempts: ${reason}`);
      }
    }
    return this.finished(record);
  }

  private finished(record: InboundRecord): true {
    this.health.progressed(where(record, false), record.offset);
    return true;
  }

  private deadLetter(
    record: InboundRecord,
    reason: string,
    errors?: ReadonlyArray<{ path?: string; message: string }>,
  ): Promise<void> {
    return deadLetterOrSkip(this.options.deadLetters, record, reason, errors, this.options.logger);
  }

  private withHeartbeats<T>(heartbeat: () => Promise<void>, work: () => Promise<T>): Promise<T> {
    return whileHeartbeating(heartbeat, this.options.heartbeatEveryMs, work, (error: unknown) => {
      this.options.logger?.warn(logEvent('consumer.heartbeat_failed', { error: errorText(error) }));
    });
  }
}

function splitKey(key: string): [string, number] {
  const at = key.lastIndexOf(':');
  return [key.slice(0, at), Number(key.slice(at + 1))];
}

/** A record's place as log fields. */
function at(record: InboundRecord): { topic: string; partition: number; offset: string } {
  return { topic: record.topic, partition: record.partition, offset: record.offset };
}

/** `topic[p]@offset`, or `topic[p]` without the offset. */
function where(record: InboundRecord, withOffset = true): string {
  const partition = `${record.topic}[${record.partition}]`;
  return withOffset ? `${partition}@${record.offset}` : partition;
}
