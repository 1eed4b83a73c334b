import type { Admin } from 'kafkajs';
import { BACKOFF, retry } from '@kpm/common';

/**
 * Errors that mean a client's view of a partition's leader is behind the cluster's: the topic was
 * created a moment ago, or its leader moved. Asking again (with fresh metadata) succeeds.
 */
const STALE_LEADERSHIP = new Set([
  'UNKNOWN_TOPIC_OR_PARTITION',
  'LEADER_NOT_AVAILABLE',
  'NOT_LEADER_FOR_PARTITION',
]);

export function isStaleLeadership(error: unknown): boolean {
  return STALE_LEADERSHIP.has((error as { type?: string }).type ?? '');
}

/**
 * Waits until every partition of `topics` has a leader that serves it. kafkajs' own
 * `waitForLeaders` retries only LEADER_NOT_AVAILABLE, but a KRaft broker answers
 * UNKNOWN_TOPIC_OR_PARTITION until its metadata cache has caught up with the controller — seen on
 * a freshly formatted broker under load — so creating topics then failed at once. And metadata
 * naming a leader is not yet a leader that answers: under load the broker still said
 * NOT_LEADER_FOR_PARTITION to a ListOffsets moments later (CI: a client subscribing to topics
 * just created). So the wait ends when every topic's offsets can be read.
 */
async function waitForTopicLeaders(
  admin: Admin,
  topics: readonly string[],
  timeoutMs = 30_000,
): Promise<void> {
  await retry(
    async () => {
      const { topics: found } = await admin.fetchTopicMetadata({ topics: [...topics] });
      const leaderless = found.filter(
        (t) => t.partitions.length === 0 || t.partitions.some((p) => p.leader < 0),
      );
      if (leaderless.length > 0 || found.length !== topics.length)
        throw new NoLeadersYet(leaderless.map((t) => t.name));
      for (const topic of topics) await admin.fetchTopicOffsets(topic);
    },
    {
      backoff: BACKOFF.topicLeaders,
      deadlineMs: timeoutMs,
      retryable: (error) => error instanceof NoLeadersYet || isStaleLeadership(error),
    },
  ).catch((error: unknown) => {
    if (!(error instanceof NoLeadersYet)) throw error;
    throw new Error(`topics without leaders after ${timeoutMs} ms: ${error.topics.join(', ')}`);
  });
}

class NoLeadersYet extends Error {
  constructor(readonly topics: string[]) {
    super(`topics without leaders: ${topics.join(', ')}`);
  }
}

/** `admin.createTopics`, then {@link waitForTopicLeaders}; resolves false when all existed. */
export async function createTopicsWithLeaders(
  admin: Admin,
  topics: Parameters<Admin['createTopics']>[0]['topics'],
): Promise<boolean> {
  const created = await admin.createTopics({ waitForLeaders: false, topics });
  await waitForTopicLeaders(
    admin,
    topics.map((t) => t.topic),
  );
  return created;
}
