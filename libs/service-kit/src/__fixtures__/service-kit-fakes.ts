import { loadSettings, type KpmSettings } from '@kpm/config';
import type { EventProducer, OutboundRecord } from '@kpm/kafka';

export interface Sent {
  topic: string;
  records: readonly OutboundRecord[];
}

/** An EventProducer that records what it was asked to send; `fail` makes sends reject. */
export function recordingProducer(fail?: Error) {
  const sent: Sent[] = [];
  const calls: string[] = [];
  const producer = {
    connect: () => {
      calls.push('connect');
      return Promise.resolve();
    },
    disconnect: () => {
      calls.push('disconnect');
      return Promise.resolve();
    },
    send: (topic: string, records: readonly OutboundRecord[]) => {
      if (fail) return Promise.reject(fail);
      sent.push({ topic, records });
      return Promise.resolve();
    },
  };
  return { producer: producer as unknown as EventProducer, sent, calls };
}

export function settingsFor(service: string): KpmSettings {
  return loadSettings(
    service,
    {},
    {
      instance: service === 'boot-worker' ? 'bw-0' : `${service}-0`,
      kafka: { topicPrefix: 'kpmtest', partitions: 6 },
      http: { port: 0, host: '127.0.0.1' },
    },
  );
}

/** The CloudEvent a sent record carries. */
export function eventOf(record: OutboundRecord): Record<string, unknown> {
  return JSON.parse(String(record.value)) as Record<string, unknown>;
}
