/**
 * kafkajs heartbeats only between messages: long work must send them itself, or the member is
 * dropped from its group and the partitions move while the work is still running.
 */
export async function whileHeartbeating<T>(
  heartbeat: () => Promise<void>,
  everyMs: number,
  work: () => Promise<T>,
  onError: (error: unknown) => void,
): Promise<T> {
  const timer = setInterval(() => {
    // A rebalance surfaces here; the batch turns stale and the consumer rejoins after the work.
    heartbeat().catch(onError);
  }, everyMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
