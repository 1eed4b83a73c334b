import type { Consumer, EachBatchPayload } from 'kafkajs';
import { backoffDelay, delay, type BackoffPolicy } from '@kpm/common';
import { ConsumerHealth, type ConsumerHealthReport } from './consumer-health';
import type { DeadLetterSink } from './dead-letter-sink';
import { whileHeartbeating } from './heartbeats';
import { toInboundRecord, type InboundRecord } from './inbound-record';
import { PoisonRecordError } from './poison-record';

/** What a handler may do besides its work: keep the group membership alive during long work. */
export interface RecordContext {
  heartbeat(): Promise<void>;
  /** Aborted when the consumer stops or loses the partition; long handlers should give up. */
  signal: AbortSignal;
}

export type RecordHandler = (record: InboundRecord, context: RecordContext) => Promise<void>;

export interface RunnerLogger {
  warn(message: string): void;
  error(message: string): void;
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
  /** Heartbeats are sent this often while a handler runs (kafkajs only beats between messages). */
  heartbeatEveryMs?: number;
  fromBeginning?: boolean;
  logger?: RunnerLogger;
  /** Told whenever the consumer's health changes (in the group, crashing, a partition stuck). */
  onHealth?: (report: ConsumerHealthReport) => void;
}

/**
 * At-least-once consumption: each record's offset is resolved only after its handler finished,
 * poison records are dead-lettered and skipped, and handler failures back off instead of spinning.
 */
export class ConsumerRunner {
  private readonly stopping = new AbortController();
  private readonly options: Required<Omit<ConsumerRunnerOptions, 'logger' | 'onHealth'>> & {
    logger?: RunnerLogger;
  };
  readonly health: ConsumerHealth;

  constructor(options: ConsumerRunnerOptions) {
    this.options = {
      maxAttempts: 8,
      backoff: { initialMs: 250, maxMs: 30_000 },
      partitionsConsumedConcurrently: 6,
      heartbeatEveryMs: 1_000,
      fromBeginning: true,
      ...options,
    };
    this.health = new ConsumerHealth(options.onHealth);
  }

  async start(): Promise<void> {
    const { consumer, topics, fromBeginning, partitionsConsumedConcurrently } = this.options;
    consumer.on(consumer.events.GROUP_JOIN, () => this.health.joinedGroup());
    consumer.on(consumer.events.CRASH, ({ payload }) =>
      this.health.crashed(payload.error, payload.restart),
    );
    await consumer.connect();
    await consumer.subscribe({ topics: [...topics], fromBeginning });
    await consumer.run({
      autoCommit: true,
      autoCommitInterval: 500,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently,
      eachBatch: (payload) => this.consumeBatch(payload),
    });
  }

  /** Finishes the record in hand (without starting retries), commits what is resolved, leaves the group. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.options.consumer.disconnect();
  }

  private async consumeBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const heartbeat = () => payload.heartbeat();
    for (const message of batch.messages) {
      if (!payload.isRunning() || payload.isStale()) return;
      const record = toInboundRecord(batch.topic, batch.partition, message);
      const finished = await this.withHeartbeats(heartbeat, () =>
        this.handleWithRetries(record, heartbeat),
      );
      if (!finished) return; // stopping mid-retry: leave the offset unresolved so it is redelivered
      payload.resolveOffset(message.offset);
      await payload.commitOffsetsIfNecessary();
    }
  }

  private async handleWithRetries(
    record: InboundRecord,
    heartbeat: () => Promise<void>,
  ): Promise<boolean> {
    const { handle, maxAttempts, backoff, logger } = this.options;
    const context: RecordContext = { heartbeat, signal: this.stopping.signal };
    for (let attempt = 1; ; attempt++) {
      try {
        await handle(record, context);
        this.health.progressed(where(record, false));
        return true;
      } catch (error) {
        if (error instanceof PoisonRecordError) {
          await this.deadLetter(record, error.reason, error.errors);
          this.health.progressed(where(record, false));
          return true;
        }
        const reason = error instanceof Error ? error.message : String(error);
        if (attempt >= maxAttempts) {
          logger?.error(`${where(record)}: giving up after ${attempt} attempts: ${reason}`);
          await this.deadLetter(record, `handler failed after ${attempt} attempts: ${reason}`);
          this.health.progressed(where(record, false));
          return true;
        }
        logger?.warn(`${where(record)}: attempt ${attempt} failed, retrying: ${reason}`);
        this.health.retrying(where(record, false), record.offset, attempt, reason);
        await delay(backoffDelay(attempt, backoff), this.stopping.signal);
        if (this.stopping.signal.aborted) return false;
      }
    }
  }

  /**
   * Dead-letters `record`; if even that fails, logs and counts it and moves on: a record read
   * again and again would hold up its partition for good (docs/design.md §3.3).
   */
  private async deadLetter(
    record: InboundRecord,
    reason: string,
    errors?: ReadonlyArray<{ path?: string; message: string }>,
  ): Promise<void> {
    const { deadLetters, logger } = this.options;
    try {
      await deadLetters.publish(record, reason, errors);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      logger?.error(
        `${where(record)}: could not be dead-lettered (${why}); skipped. It was refused because: ${reason.slice(0, 1024)}`,
      );
      deadLetters.failed?.(record, error);
    }
  }

  private withHeartbeats<T>(heartbeat: () => Promise<void>, work: () => Promise<T>): Promise<T> {
    return whileHeartbeating(heartbeat, this.options.heartbeatEveryMs, work, (error: unknown) => {
      this.options.logger?.warn(
        `heartbeat failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }
}

/** `topic[p]@offset`, or `topic[p]` without the offset. */
function where(record: InboundRecord, withOffset = true): string {
  const partition = `${record.topic}[${record.partition}]`;
  return withOffset ? `${partition}@${record.offset}` : partition;
}
