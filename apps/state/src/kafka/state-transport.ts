/**
 * The state service's Nest transport: the TransactionalRunner (exactly-once, per-partition
 * transactions) instead of the at-least-once CloudEventServer the other services use.
 */
import { Logger } from '@nestjs/common';
import { Server, type CustomTransportStrategy } from '@nestjs/microservices';
import type { KpmSettings } from '@kpm/config';
import { recordTraceparent } from '@kpm/contracts';
import { TransactionalRunner, type KafkaClient } from '@kpm/kafka';
import type { Readiness } from '@kpm/service-kit';
import type { StateCoordinator } from './state-coordinator';
import type { StateMetrics } from './state-metrics';

export class StateTransport extends Server implements CustomTransportStrategy {
  protected override readonly logger = new Logger(StateTransport.name);
  private runner?: TransactionalRunner;

  constructor(
    private readonly kafka: KafkaClient,
    private readonly settings: Pick<KpmSettings, 'state'>,
    private readonly groupId: string,
    private readonly topics: readonly string[],
    private readonly partitions: StateCoordinator,
    private readonly readiness: Readiness,
    private readonly metrics?: Pick<StateMetrics, 'observeTransaction'>,
  ) {
    super();
  }

  listen(callback: (error?: unknown) => void): void {
    this.runner = new TransactionalRunner({
      kafka: this.kafka,
      groupId: this.groupId,
      topics: this.topics,
      handler: this.partitions,
      transactionalIdPrefix: this.groupId,
      transactionTimeoutMs: this.settings.state.transactionTimeoutMs,
      sessionTimeoutMs: this.settings.state.sessionTimeoutMs,
      logger: this.logger,
      onReadiness: (ready, detail) => this.readiness.set('kafka-consumer', ready, detail),
      traceOf: (record) => recordTraceparent(record.value, record.headers),
      onTransaction: (timing) => this.metrics?.observeTransaction(timing),
    });
    this.runner.start().then(
      () => callback(),
      (error: unknown) => callback(error),
    );
  }

  async close(): Promise<void> {
    await this.runner?.stop();
  }

  on(): never {
    throw new Error('StateTransport does not expose client events');
  }

  unwrap<T>(): T {
    throw new Error('StateTransport has no underlying client to unwrap');
  }
}
