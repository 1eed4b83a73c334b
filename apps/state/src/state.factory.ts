/**
 * The state service's composition: its view, coordinator, transport, feeds and dashboard over
 * what comes from outside — the Kafka client, the service kit's producer, broadcaster, readiness
 * and metrics registry, and the clock. StateModule passes the real ones and hands the parts to
 * Nest: the controllers inject them, Nest calls their lifecycle hooks, the transport runs the
 * consumer.
 */
import type { Clock } from '@kpm/common';
import { topicName } from '@kpm/contracts';
import type { KpmSettings } from '@kpm/config';
import { consumerGroupId, type EventProducer, type KafkaClient } from '@kpm/kafka';
import type { Broadcaster, Readiness } from '@kpm/service-kit';
import type { Registry } from 'prom-client';
import { DashboardFeed } from './dashboard/dashboard-feed';
import { FeedPublisher } from './feeds/feed-publisher';
import { StreamSlots } from './http/stream-limit';
import { StateCoordinator, stateKafka } from './kafka/state-coordinator';
import { StateMetrics } from './kafka/state-metrics';
import { StateTransport } from './kafka/state-transport';
import { StateView } from './view/state-view';

/**
 * The parts Nest reaches: what the controllers read, what has lifecycle hooks, the transport. An
 * abstract class only so that Nest can inject it by its type.
 */
export abstract class StateParts {
  abstract readonly view: StateView;
  abstract readonly coordinator: StateCoordinator;
  abstract readonly transport: StateTransport;
  abstract readonly feeds: FeedPublisher;
  abstract readonly dashboard: DashboardFeed;
  abstract readonly streams: StreamSlots;
}

/** What the state service reads of the settings. */
type StateSettings = Pick<
  KpmSettings,
  'service' | 'instance' | 'kafka' | 'state' | 'feeds' | 'security' | 'http'
>;

interface StateOutside {
  kafka: KafkaClient;
  producer: EventProducer;
  broadcaster: Broadcaster;
  readiness: Readiness;
  registry: Registry;
  clock: Clock;
}

/**
 * State reads commands, the boot-worker's facts, the watcher's terminations and the dead
 * letters (of commands given up on), all keyed by session, with exactly-once transactions of
 * its own (see README.md).
 */
export function stateInputs(topicPrefix: string): { groupId: string; topics: string[] } {
  return {
    groupId: consumerGroupId(topicPrefix, 'state'),
    topics: [
      topicName('commands', topicPrefix),
      topicName('process-events', topicPrefix),
      topicName('terminations', topicPrefix),
      // Valid commands the boot-worker gave up on, to complete them as failed.
      topicName('dead-letters', topicPrefix),
    ],
  };
}

export function createState(
  settings: StateSettings,
  { kafka, producer, broadcaster, readiness, registry, clock }: StateOutside,
): StateParts {
  const { groupId, topics } = stateInputs(settings.kafka.topicPrefix);
  const metrics = new StateMetrics(registry);
  const view = new StateView(settings, kafka, readiness);
  const coordinator = new StateCoordinator(
    settings,
    stateKafka(kafka),
    broadcaster,
    view,
    metrics,
    clock,
  );
  return {
    view,
    coordinator,
    transport: new StateTransport(
      kafka,
      settings,
      groupId,
      topics,
      coordinator,
      readiness,
      metrics,
    ),
    feeds: new FeedPublisher(settings, kafka, producer, coordinator),
    dashboard: new DashboardFeed(view),
    streams: new StreamSlots(settings),
  };
}
