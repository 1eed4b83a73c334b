import { Logger } from '@nestjs/common';
import { Server, type CustomTransportStrategy } from '@nestjs/microservices';
import type { KafkaClient } from '../kafka-client';
import { isObservable, lastValueFrom } from 'rxjs';
import { parseRecord, traceparentOf, type FieldError } from '@kpm/contracts';
import { logEvent } from '@kpm/common';
import { inSpan, SpanKind } from '@kpm/tracing';
import { ConsumerRunner, type ConsumerRunnerOptions, type RecordContext } from '../consumer-runner';
import type { ConsumerHealthReport } from '../consumer-health';
import type { DeadLetterSink } from '../dead-letter-sink';
import type { InboundRecord } from '../inbound-record';
import { PoisonRecordError } from '../poison-record';
import { KafkaEventContext } from './kafka-event-context';

/** Pattern of the handler that receives CloudEvents whose type or data failed validation. */
export const INVALID_EVENT = 'kpm.invalid-event';

/** What an `@EventPattern(INVALID_EVENT)` handler receives. */
export interface InvalidEvent {
  record: InboundRecord;
  envelope: { id?: string; type?: string; subject?: string; source?: string };
  errors: FieldError[];
}

export interface CloudEventServerOptions {
  kafka: KafkaClient;
  groupId: string;
  topics: readonly string[];
  deadLetters: DeadLetterSink;
  maxRecordBytes: number;
  runner?: Partial<
    Pick<
      ConsumerRunnerOptions,
      'maxAttempts' | 'backoff' | 'partitionsConsumedConcurrently' | 'maxInFlight'
    >
  >;
  /** Reported when the consumer is in its group and fetching; feeds /readyz. */
  onReady?: () => void;
  /**
   * The consumers' health whenever it changes: ready when every consumer is in the group and
   * none is crashing or stuck on a partition; else the detail names the partition and why.
   */
  onHealth?: (report: ConsumerHealthReport) => void;
  /**
   * Consumers of the group in this process (default 1). kafkajs fetches from a broker again only
   * once every batch of the last fetch was handled; the runner hands records to their session's
   * lane and returns, but a partition at its in-flight bound waits — one consumer per partition
   * keeps that wait from holding up the other partitions.
   */
  consumers?: number;
  /**
   * Records this service does not act on here: the reason, or undefined to act. A skipped record
   * is committed past unhandled (e.g. a command on another partition than its session's, which
   * the state service forwards to the right one, docs/design.md §9.6).
   */
  skip?: (record: InboundRecord) => string | undefined;
}

/**
 * A Nest transport that routes CloudEvents from Kafka to `@EventPattern(<event type>)` handlers.
 *
 * Nest's own ServerKafka is not used for consuming: it has no dead-letter path, retries failed
 * event handlers forever on the same record, and offers eachMessage only. This keeps Nest's
 * handler registry and decorators and puts kpm's at-least-once ConsumerRunner underneath.
 */
export class CloudEventServer extends Server implements CustomTransportStrategy {
  protected override readonly logger = new Logger(CloudEventServer.name);
  private runners: ConsumerRunner[] = [];

  constructor(private readonly options: CloudEventServerOptions) {
    super();
  }

  listen(callback: (error?: unknown) => void): void {
    const count = Math.max(1, this.options.consumers ?? 1);
    this.runners = Array.from({ length: count }, () => this.createRunner());
    Promise.all(this.runners.map((runner) => runner.start())).then(
      () => callback(),
      (error: unknown) => callback(error),
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.runners.map((runner) => runner.stop()));
  }

  private createRunner(): ConsumerRunner {
    const { kafka, groupId, topics, deadLetters, runner } = this.options;
    // A short fetch wait bounds how long shutdown waits for the fetch in flight.
    const consumer = kafka.consumer({
      groupId,
      sessionTimeout: 30_000,
      heartbeatInterval: 3_000,
      // A record reached the boot-worker 90–250 ms after the state's consumer had it (traced,
      // 2026-11-28): a waiting fetch is not always answered when a record lands. Waiting at most
      // 100 ms bounds that (29–88 ms), for ten empty fetches a second when idle instead of one:
      // a drunc-style boot call 233–238 → 150–216 ms median (bench/drunc-gateway, 17@1).
      maxWaitTimeInMs: 100,
      // A fetch must hold the largest record kpm accepts (a 5000-process boot is a few MiB).
      maxBytesPerPartition: this.options.maxRecordBytes + 64 * 1024,
      maxBytes: Math.max(50 * 1024 * 1024, 2 * this.options.maxRecordBytes),
    });
    consumer.on(consumer.events.GROUP_JOIN, () => this.options.onReady?.());
    return new ConsumerRunner({
      consumer,
      topics,
      deadLetters,
      handle: (record, context) => this.dispatch(record, context),
      logger: this.logger,
      onHealth: () => this.reportHealth(),
      ...runner,
    });
  }

  /** One report for all consumers: the problems of each, or ready. */
  private reportHealth(): void {
    const reports = this.runners.map((r) => r.health.report());
    const problems = [...new Set(reports.filter((r) => !r.ready).map((r) => r.detail))];
    this.options.onHealth?.(
      problems.length === 0
        ? { ready: reports.length > 0, detail: 'consuming' }
        : { ready: false, detail: problems.join('; ') },
    );
  }

  on(): never {
    throw new Error('CloudEventServer does not expose client events');
  }

  unwrap<T>(): T {
    throw new Error('CloudEventServer has no underlying client to unwrap');
  }

  private async dispatch(record: InboundRecord, context: RecordContext): Promise<void> {
    const skipped = this.options.skip?.(record);
    if (skipped !== undefined) {
      this.logger.debug(
        logEvent('record.skipped', {
          topic: record.topic,
          partition: record.partition,
          offset: record.offset,
          reason: skipped,
        }),
      );
      return;
    }
    const parsed = parseRecord(record.value, {
      maxBytes: this.options.maxRecordBytes,
      topic: record.topic,
      key: record.key,
      headers: record.headers,
    });
    const rpcContext = new KafkaEventContext([record, context]);
    if (parsed.ok) {
      const handler = this.getHandlerByPattern(parsed.event.type);
      if (!handler) return; // a type this service does not act on: acknowledged and skipped
      const { event } = parsed;
      return inSpan(
        `process ${event.type}`,
        {
          kind: SpanKind.CONSUMER,
          parent: traceparentOf(event),
          attributes: {
            'messaging.system': 'kafka',
            'messaging.operation.type': 'process',
            'messaging.destination.name': record.topic,
            'messaging.destination.partition.id': String(record.partition),
            'messaging.kafka.offset': Number(record.offset),
            'messaging.message.id': event.id,
            'kpm.session': event.subject ?? '',
          },
        },
        () => this.run(handler(event, rpcContext)),
      );
    }
    if (parsed.kind === 'not-a-cloudevent') throw new PoisonRecordError(parsed.reason);
    const invalidHandler = this.getHandlerByPattern(INVALID_EVENT);
    if (!invalidHandler) throw new PoisonRecordError('invalid CloudEvent', parsed.errors);
    const invalid: InvalidEvent = { record, envelope: parsed.envelope, errors: parsed.errors };
    return this.run(invalidHandler(invalid, rpcContext));
  }

  /** Nest wraps handler errors into observables; unwrap them so the runner sees failures. */
  private async run(result: unknown): Promise<void> {
    const settled: unknown = await result;
    if (isObservable(settled)) await lastValueFrom(settled, { defaultValue: undefined });
  }
}
