import type { Admin } from 'kafkajs';
import { BACKOFF, retry } from '@kpm/common';
import type { KafkaClient } from './kafka-client';
import { isStaleLeadership } from './topic-leaders';

/** A partition's offsets: the first retained record and the offset the next record gets. */
interface PartitionOffsets {
  partition: number;
  low: string;
  end: string;
}

function toPartitionOffsets(
  offsets: Awaited<ReturnType<Admin['fetchTopicOffsets']>>,
): PartitionOffsets[] {
  return offsets.map(({ partition, low, offset }) => ({ partition, low, end: offset }));
}

/** One admin connection, opened on first use and shared by concurrent callers. */
export class SharedAdmin {
  private ready?: Promise<Admin>;

  constructor(private readonly kafka: KafkaClient) {}

  async listTopics(): Promise<string[]> {
    return (await this.admin()).listTopics();
  }

  /**
   * Each partition's offsets. kafkajs gives up at once when a partition's leader is not where its
   * metadata says (a topic created a moment ago, a leader that moved) and does not refresh that
   * metadata itself; so on such an answer this asks again over connections of its own, each with
   * fresh metadata (closing the shared one would fail its other callers' requests in flight).
   */
  async partitionOffsets(topic: string, deadlineMs = 30_000): Promise<PartitionOffsets[]> {
    try {
      return toPartitionOffsets(await (await this.admin()).fetchTopicOffsets(topic));
    } catch (error) {
      if (!isStaleLeadership(error)) throw error;
    }
    const offsets = await retry(
      () => withAdmin(this.kafka, (admin) => admin.fetchTopicOffsets(topic)),
      { backoff: BACKOFF.topicLeaders, deadlineMs, retryable: isStaleLeadership },
    );
    return toPartitionOffsets(offsets);
  }

  async close(): Promise<void> {
    const admin = await this.ready?.catch(() => undefined);
    this.ready = undefined;
    await admin?.disconnect();
  }

  private admin(): Promise<Admin> {
    this.ready ??= (async () => {
      const admin = this.kafka.admin();
      await admin.connect();
      return admin;
    })().catch((error: unknown) => {
      this.ready = undefined; // a broker that was down may be up on the next call
      throw error;
    });
    return this.ready;
  }
}

/** Runs `work` with an admin connection of its own, closed afterwards. */
export async function withAdmin<T>(
  kafka: KafkaClient,
  work: (admin: Admin) => Promise<T>,
): Promise<T> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.disconnect();
  }
}
