import type { Admin } from 'kafkajs';
import { BACKOFF, retry } from '@kpm/common';

/** Metadata errors that only mean "not propagated yet" right after a topic was created. */
const NOT_YET = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE']);

/**
 * Waits until every partition of `topics` has a leader. kafkajs' own `waitForLeaders` retries
 * only LEADER_NOT_AVAILABLE, but a KRaft broker answers UNKNOWN_TOPIC_OR_PARTITION until its
 * metadata cache has caught up with the controller — seen on a freshly formatted broker under
 * load — so creating topics then failed at once.
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
    },
    {
      backoff: BACKOFF.topicLeaders,
      deadlineMs: timeoutMs,
      retryable: (error) =>
        error instanceof NoLeadersYet || NOT_YET.has((error as { type?: string }).type ?? ''),
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
