/**
 * What DUNE's feeds say on their own clock, outside any input's transaction
 * (docs/design.md §5.7): drunc's SERVER_READY when the state service starts, and opmon's
 * ProcessStatus of every session this replica owns every `interval_s`. Both are plain sends:
 * a lost or repeated one is corrected by the next.
 */
import { Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { hostname } from 'node:os';
import { errorText, logEvent } from '@kpm/common';
import type { FeedsConfig, KpmSettings } from '@kpm/config';
import type { ProcessInstance } from '@kpm/contracts';
import {
  createTopicsWithLeaders,
  withAdmin,
  type EventProducer,
  type KafkaClient,
} from '@kpm/kafka';
import type { StateCoordinator } from '../kafka/state-coordinator';
import { SERVER_READY } from './drunc-broadcasts';
import { FeedRecords, feedsOn, feedTopics } from './feed-records';

/** Each session's rows. */
export function bySession(rows: readonly ProcessInstance[]): Map<string, ProcessInstance[]> {
  const sessions = new Map<string, ProcessInstance[]>();
  for (const row of rows) {
    const session = row.description.metadata.session;
    const list = sessions.get(session);
    if (list) list.push(row);
    else sessions.set(session, [row]);
  }
  return sessions;
}

export class FeedPublisher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(FeedPublisher.name);
  private readonly feeds: FeedsConfig;
  private readonly records: FeedRecords;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly settings: Pick<KpmSettings, 'kafka' | 'feeds'>,
    private readonly kafka: KafkaClient,
    private readonly producer: EventProducer,
    private readonly coordinator: StateCoordinator,
  ) {
    this.feeds = settings.feeds;
    this.records = new FeedRecords(settings.feeds, hostname());
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!feedsOn(this.feeds)) return;
    await this.ensureTopics();
    await this.producer.connect();
    if (this.feeds.broadcast.enabled) {
      const ready = this.records.broadcast(SERVER_READY);
      await this.producer.send(ready.topic, [ready]);
    }
    if (this.feeds.opmon.enabled) {
      this.timer = setInterval(
        () => void this.publishOpmon(),
        this.feeds.opmon.intervalSeconds * 1000,
      );
      this.timer.unref();
    }
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** One ProcessStatus per session this replica owns; a failure is logged, the next one follows. */
  async publishOpmon(now = Date.now()): Promise<void> {
    const sessions = bySession(this.coordinator.ownedProcesses());
    const records = [...sessions].map(([session, rows]) => this.records.opmon(session, rows, now));
    try {
      await this.producer.send(feedTopics(this.feeds).opmon, records);
    } catch (error) {
      this.logger.warn(
        logEvent('opmon.publish_failed', { sessions: sessions.size, error: errorText(error) }),
      );
    }
  }

  /**
   * The feeds' topics, created when missing: DUNE's own brokers usually have them already, with
   * a layout of their own, so an existing one is left as it is. The drunc topic has one
   * partition: its records have no key, and a shell reads them in order.
   */
  private async ensureTopics(): Promise<void> {
    const topics = feedTopics(this.feeds);
    const { replicationFactor, partitions } = this.settings.kafka;
    const wanted = [
      ...(this.feeds.broadcast.enabled ? [{ topic: topics.broadcast, numPartitions: 1 }] : []),
      ...(this.feeds.opmon.enabled ? [{ topic: topics.opmon, numPartitions: partitions }] : []),
      ...(this.feeds.ers.enabled ? [{ topic: topics.ers, numPartitions: partitions }] : []),
    ];
    await withAdmin(this.kafka, async (admin) => {
      const existing = new Set(await admin.listTopics());
      const missing = wanted.filter((t) => !existing.has(t.topic));
      if (missing.length === 0) return;
      try {
        await createTopicsWithLeaders(
          admin,
          missing.map((t) => ({ ...t, replicationFactor })),
        );
      } catch (error) {
        // Another replica may have created them between our list and create: that is success.
        const nested = (error as { errors?: Array<{ type?: string }> }).errors ?? [];
        const exists = (e: { type?: string }) => e.type === 'TOPIC_ALREADY_EXISTS';
        if (nested.length > 0 ? nested.every(exists) : exists(error as { type?: string })) return;
        const names = missing.map((t) => t.topic).join(', ');
        throw new Error(
          `DUNE's feed topics ${names} are missing and could not be created ` +
            `(${(error as Error).message}): create them, grant the state principal Create on ` +
            'them, or switch those feeds off (feeds.<broadcast|opmon|ers>.enabled=false)',
        );
      }
    });
  }
}
