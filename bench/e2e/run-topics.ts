import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { topicName, type TopicId } from '@kpm/contracts';

interface RunTopicsReader {
  clientId: string;
  brokers: string[];
  /** The bench run's topic prefix. */
  prefix: string;
  topics: readonly TopicId[];
  /** How long a fetch waits for records: short, so a record is timed when it arrives. */
  maxWaitTimeInMs: number;
  onMessage: (message: KafkaMessage) => void;
}

/**
 * Reads a bench run's topics from their beginning, each record to `onMessage`, in a group of its
 * own; resolves once it consumes, with the function that stops it. What the e2e FactClock and the
 * soak's Ledger both read through.
 */
export async function readRunTopics(reader: RunTopicsReader): Promise<() => Promise<void>> {
  const { clientId, brokers, prefix, topics, maxWaitTimeInMs, onMessage } = reader;
  const kafka = new Kafka({ clientId, brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `${clientId}-${randomUUID()}`, maxWaitTimeInMs });
  await consumer.connect();
  await consumer.subscribe({
    topics: topics.map((role) => topicName(role, prefix)),
    fromBeginning: true,
  });
  await consumer.run({
    eachMessage: ({ message }) => {
      onMessage(message);
      return Promise.resolve();
    },
  });
  return () => consumer.disconnect();
}
