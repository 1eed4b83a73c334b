/**
 * `npm run bench:kafka-produce`: the watcher's way of publishing a burst of terminations against
 * the alternatives, on the local stack's broker, in one run, alternating burst by burst:
 *
 * - `kafkajs, one batch in flight`: what the watcher does — kafkajs' idempotent producer
 *   (maxInFlightRequests 1, acks all) behind libs/common's Batcher, which sends one batch at a
 *   time and gathers what arrives meanwhile into the next;
 * - `kafkajs, a send per record`: the same producer, every record its own `send()` at once —
 *   what "several requests in flight" gives with kafkajs, whose idempotent producer serialises
 *   requests per broker;
 * - `confluent-kafka-javascript`: librdkafka's idempotent producer (acks all, up to 5 requests
 *   in flight with order kept per partition), through its KafkaJS-compatible API, a `send()` per
 *   record. Not a dependency of kpm: installed for the bench with
 *   `CKJS_LINKING=dynamic npm install --no-save @confluentinc/kafka-javascript` (Debian's
 *   zlib1g-dev, libssl-dev, libzstd-dev, libcurl4-openssl-dev and libsasl2-dev); the variant is
 *   left out, saying so, when it is not installed.
 *
 *   npm run bench:kafka-produce -- [--records 500] [--bursts 5]
 *
 * Each burst: `records` termination-sized records (about 1 KB, keyed by 20 sessions) handed to
 * the producer at once; per record, the time from the hand-over to its acknowledgement.
 */
import { randomBytes } from 'node:crypto';
import { Batcher } from '@kpm/common';
import { createKafkaClient, EventProducer, type OutboundRecord } from '@kpm/kafka';
import { readStackEnv } from '@kpm/stack';
import { percentile } from '../e2e/stats';

interface Variant {
  name: string;
  /** Hands every record over at once; resolves when all are acknowledged, with each one's ms. */
  burst(topic: string, records: OutboundRecord[]): Promise<number[]>;
  close(): Promise<void>;
}

function recordsOf(count: number): OutboundRecord[] {
  return Array.from({ length: count }, (_, i) => {
    const session = `run-${i % 20}`;
    const value = JSON.stringify({
      specversion: '1.0',
      type: 'daq.kpm.fact.process-terminated.v1',
      id: randomBytes(16).toString('hex'),
      source: 'kpm.watcher',
      subject: session,
      time: new Date().toISOString(),
      data: {
        session,
        uuid: randomBytes(16).toString('hex'),
        name: `readout-${i}`,
        podName: `readout-${i}-${randomBytes(4).toString('hex')}`,
        podUid: randomBytes(16).toString('hex'),
        exitCode: 143,
        reason: 'Error',
        detectedBy: 'containerStatus',
        finishedAt: new Date().toISOString(),
        padding: 'x'.repeat(600),
      },
    });
    return { key: session, value };
  });
}

async function kafkajsBatched(brokers: string[]): Promise<Variant> {
  const producer = new EventProducer(
    createKafkaClient({ brokers, clientId: 'bench-batched' }, { logs: 'silent' }),
  );
  await producer.connect();
  let topic = '';
  const batcher = new Batcher<OutboundRecord>({
    maxItems: 500, // the watcher's publishBatchSize
    send: (batch) => producer.send(topic, batch),
  });
  return {
    name: 'kafkajs, one batch in flight',
    burst: (to, records) => {
      topic = to;
      const started = performance.now();
      return Promise.all(
        records.map((record) => batcher.send(record).then(() => performance.now() - started)),
      );
    },
    close: () => producer.disconnect(),
  };
}

async function kafkajsPerRecord(brokers: string[]): Promise<Variant> {
  const producer = new EventProducer(
    createKafkaClient({ brokers, clientId: 'bench-per-record' }, { logs: 'silent' }),
  );
  await producer.connect();
  return {
    name: 'kafkajs, a send per record',
    burst: (topic, records) => {
      const started = performance.now();
      return Promise.all(
        records.map((record) =>
          producer.send(topic, [record]).then(() => performance.now() - started),
        ),
      );
    },
    close: () => producer.disconnect(),
  };
}

/** The KafkaJS-compatible API of confluent-kafka-javascript, as far as the bench uses it. */
interface ConfluentModule {
  KafkaJS: {
    Kafka: new (config: Record<string, unknown>) => {
      producer(config: Record<string, unknown>): {
        connect(): Promise<void>;
        disconnect(): Promise<void>;
        send(request: {
          topic: string;
          messages: { key: string | null; value: unknown }[];
        }): Promise<unknown>;
      };
    };
  };
}

async function confluent(brokers: string[]): Promise<Variant | string> {
  let module: ConfluentModule;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    module = require('@confluentinc/kafka-javascript') as ConfluentModule;
  } catch (error) {
    return `confluent-kafka-javascript left out: ${(error as Error).message.split('\n')[0]}`;
  }
  const kafka = new module.KafkaJS.Kafka({
    kafkaJS: { brokers, clientId: 'bench-confluent', logLevel: 0 },
  });
  const producer = kafka.producer({
    kafkaJS: { idempotent: true, acks: -1, maxInFlightRequests: 5 },
    'linger.ms': 0,
  });
  await producer.connect();
  return {
    name: 'confluent-kafka-javascript (librdkafka)',
    burst: (topic, records) => {
      const started = performance.now();
      return Promise.all(
        records.map((record) =>
          producer
            .send({ topic, messages: [{ key: record.key, value: record.value }] })
            .then(() => performance.now() - started),
        ),
      );
    },
    close: () => producer.disconnect(),
  };
}

function arg(flag: string, fallback: number): number {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

async function createTopic(brokers: string[], topic: string): Promise<void> {
  const admin = createKafkaClient({ brokers, clientId: 'bench-admin' }, { logs: 'silent' }).admin();
  await admin.connect();
  // As kpm.terminations on the local stack: 12 partitions, one replica.
  await admin.createTopics({
    topics: [{ topic, numPartitions: 12, replicationFactor: 1 }],
    waitForLeaders: true,
  });
  await admin.disconnect();
}

async function main(): Promise<void> {
  const records = arg('--records', 500);
  const bursts = arg('--bursts', 5);
  const brokers = readStackEnv().KPM_KAFKA_BROKERS?.split(',');
  if (!brokers)
    throw new Error('bench:kafka-produce: the local stack is not up (npx kpm stack up)');
  const topic = `bench-produce-${randomBytes(3).toString('hex')}`;
  await createTopic(brokers, topic);

  const variants: Variant[] = [await kafkajsBatched(brokers), await kafkajsPerRecord(brokers)];
  const third = await confluent(brokers);
  if (typeof third === 'string') console.error(third);
  else variants.push(third);
  // One burst each before measuring: connections, metadata, producer ids.
  for (const variant of variants) await variant.burst(topic, recordsOf(20));

  const latencies = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  const totals = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  for (let round = 0; round < bursts; round += 1) {
    const order = variants.map((_, i) => variants[(i + round) % variants.length]);
    for (const variant of order) {
      const acked = await variant.burst(topic, recordsOf(records));
      latencies.get(variant.name)!.push(...acked);
      totals.get(variant.name)!.push(Math.max(...acked));
      console.error(
        `burst ${round + 1}: ${variant.name}: all acknowledged in ${Math.max(...acked).toFixed(0)} ms`,
      );
    }
  }
  for (const variant of variants) await variant.close();

  console.log(
    `| producer (${records} records at once, ${bursts} bursts) | p50 ms | p99 ms | last ack, median of bursts ms |`,
  );
  console.log('| --- | --- | --- | --- |');
  for (const variant of variants) {
    const all = latencies.get(variant.name)!;
    const last = totals.get(variant.name)!;
    console.log(
      `| ${variant.name} | ${percentile(all, 50).toFixed(0)} | ${percentile(all, 99).toFixed(0)} | ${percentile(last, 50).toFixed(0)} (${Math.min(...last).toFixed(0)}–${Math.max(...last).toFixed(0)}) |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
