/**
 * The state coordinator on an in-memory Kafka and a VirtualClock, driven as its
 * TransactionalRunner drives it: restore the partitions, feed batches (their outputs and offsets
 * commit together), run each partition's wakes when due. A "crash" is a new coordinator on the
 * same topics restoring from what was committed.
 */
import { Registry } from 'prom-client';
import { VirtualClock } from '@kpm/common';
import { encodeEvent, topicName, type KpmEvent, type TopicId } from '@kpm/contracts';
import { loadSettings, type KpmSettings } from '@kpm/config';
import {
  sessionPartition,
  type CommittedOffsets,
  type HistoryRequest,
  type InboundRecord,
  type TransactionalRecord,
} from '@kpm/kafka';
import { Broadcaster } from '@kpm/service-kit';
import type { StateView } from '../../view/state-view';
import { StateCoordinator, type StateKafka } from '../state-coordinator';
import { StateMetrics } from '../state-metrics';

/** Topics as lists of records per partition. */
export class MemoryKafka implements StateKafka {
  readonly partitions = new Map<string, InboundRecord[]>();

  constructor(private readonly partitionCount: number) {}

  readonly readHistory = (
    requests: readonly HistoryRequest[],
    onRecord: (record: InboundRecord) => void,
  ): Promise<unknown> => {
    for (const request of requests)
      for (const p of request.partitions) {
        const log = this.log(request.topic, p);
        const end =
          request.until === 'end' ? log.length : Number(request.until.get(p) ?? log.length);
        const from =
          request.last !== undefined
            ? Math.max(0, end - request.last)
            : Number(request.from?.get(p) ?? 0);
        for (const record of log.slice(from, end)) onRecord(record);
      }
    return Promise.resolve();
  };

  readonly endOffsets = (topic: string) =>
    Promise.resolve(
      Array.from({ length: this.partitionCount }, (_, partition) => ({
        partition,
        end: String(this.log(topic, partition).length),
      })),
    );

  close(): Promise<void> {
    return Promise.resolve();
  }

  log(topic: string, partition: number): InboundRecord[] {
    const key = `${topic}/${partition}`;
    let log = this.partitions.get(key);
    if (!log) this.partitions.set(key, (log = []));
    return log;
  }

  append(
    topic: string,
    partition: number,
    record: Omit<InboundRecord, 'topic' | 'partition' | 'offset' | 'timestamp'>,
  ): InboundRecord {
    const log = this.log(topic, partition);
    const stored = { ...record, topic, partition, offset: String(log.length), timestamp: '0' };
    log.push(stored);
    return stored;
  }

  /** Output records as the broker stores them: pinned ones on their partition, rows by key. */
  write(records: readonly TransactionalRecord[]): void {
    for (const r of records) {
      const partition = r.partition ?? sessionPartition(r.key ?? '', this.partitionCount);
      const value = r.value === null ? null : Buffer.from(r.value);
      this.append(r.topic, partition, {
        key: r.key,
        value,
        headers: { ...r.headers },
      });
    }
  }

  /** The CloudEvents written to a topic, decoded, in offset order per partition. */
  events(topic: string): KpmEvent[] {
    return [...this.partitions]
      .filter(([key]) => key.startsWith(`${topic}/`))
      .flatMap(([, log]) => log)
      .filter((r) => r.value !== null)
      .map((r) => JSON.parse(r.value!.toString()) as KpmEvent);
  }
}

export class StateBench {
  readonly settings: KpmSettings;
  readonly kafka: MemoryKafka;
  readonly clock: VirtualClock;
  /** The group's committed input offsets, as transactions moved them. */
  readonly committed = new Map<string, Map<number, string>>();
  coordinator!: StateCoordinator;
  metrics!: StateMetrics;

  constructor(env: Record<string, string> = {}, start: number) {
    this.settings = loadSettings('state', { KPM_INSTANCE: 'test', ...env });
    this.kafka = new MemoryKafka(this.settings.kafka.partitions);
    this.clock = new VirtualClock(start);
  }

  topic(id: TopicId | 'state-snapshots'): string {
    return topicName(id, this.settings.kafka.topicPrefix);
  }

  /** The session's partition number. */
  partitionOf(session: string): number {
    return sessionPartition(session, this.settings.kafka.partitions);
  }

  /** A new coordinator (a start, or a restart after a crash) restoring `partitions`. */
  async start(partitions: readonly number[]): Promise<void> {
    // The state service only encodes its broadcasts (they go in its transactions).
    const broadcaster = new Broadcaster({} as never, this.settings);
    const view = {
      select: () => [],
      shareWith: () => undefined,
      shareFrom: () => undefined,
    } as unknown as StateView;
    const metrics = new StateMetrics(new Registry());
    this.metrics = metrics;
    this.coordinator = new StateCoordinator(
      this.settings,
      this.kafka,
      broadcaster,
      view,
      metrics,
      this.clock,
    );
    const committed: CommittedOffsets = this.committed;
    const first = await this.coordinator.restore(partitions, committed);
    for (const records of first.values()) this.kafka.write(records);
  }

  /** Appends the events to their input topic (on the session's partition) and processes them as one batch. */
  deliver(id: TopicId, ...events: KpmEvent[]): void {
    const topic = this.topic(id);
    const byPartition = new Map<number, InboundRecord[]>();
    for (const event of events) {
      const p = this.partitionOf(event.subject ?? '');
      const encoded = encodeEvent(event);
      const record = this.kafka.append(topic, p, {
        key: encoded.key,
        value: encoded.value,
        headers: encoded.headers,
      });
      byPartition.set(p, [...(byPartition.get(p) ?? []), record]);
    }
    for (const [p, records] of byPartition) {
      this.kafka.write(this.coordinator.process(p, records));
      const offsets = this.committed.get(topic) ?? new Map<number, string>();
      offsets.set(p, String(Number(records.at(-1)!.offset) + 1));
      this.committed.set(topic, offsets);
    }
  }

  /** Runs p's wakes, as the runner does, until none is due by `ms` from now. */
  async advance(partition: number, ms: number): Promise<void> {
    const until = this.clock.now() + ms;
    for (;;) {
      const at = this.coordinator.nextWake(partition);
      if (at === undefined || at > until) break;
      await this.clock.sleep(Math.max(0, at - this.clock.now()));
      const positions = new Map(
        [...this.committed].map(([topic, offsets]) => [
          topic,
          BigInt(offsets.get(partition) ?? '0'),
        ]),
      );
      this.kafka.write(await this.coordinator.wake(partition, positions));
    }
    await this.clock.sleep(Math.max(0, until - this.clock.now()));
  }

  /** The completions published, as `commandId status`. */
  completions(): string[] {
    return this.kafka
      .events(this.topic('completions'))
      .map(
        (e) =>
          `${(e.data as { commandId: string }).commandId} ${(e.data as { status: string }).status}`,
      );
  }
}
