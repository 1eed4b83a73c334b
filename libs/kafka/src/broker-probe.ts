import { Kafka, logLevel } from 'kafkajs';

export interface ClusterFacts {
  clusterId: string;
  controller: number | null;
  brokers: Array<{ nodeId: number; host: string; port: number }>;
}

/** One quick DescribeCluster, no retries: a readiness probe that fails fast while the broker boots. */
export async function describeCluster(bootstrap: string): Promise<ClusterFacts> {
  const kafka = new Kafka({
    clientId: 'kpm-stack-probe',
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1000,
    requestTimeout: 3000,
    retry: { retries: 0 },
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    return await admin.describeCluster();
  } finally {
    await admin.disconnect();
  }
}

/**
 * After a start, the internal topics are created (first boot) or loaded (restart) lazily by the
 * first client, which then sees "coordinator not available / loading" errors. Touch the group and
 * the transaction coordinator once so that "ready" means consumer groups and transactions work.
 */
export async function warmCoordinators(bootstrap: string): Promise<void> {
  const kafka = new Kafka({
    clientId: 'kpm-stack-warmup',
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { initialRetryTime: 100, maxRetryTime: 1000, retries: 30 },
  });
  const admin = kafka.admin();
  const producer = kafka.producer({
    transactionalId: 'kpm-stack-warmup',
    idempotent: true,
    maxInFlightRequests: 1,
  });
  try {
    await admin.connect();
    // FindCoordinator(GROUP): creates or loads __consumer_offsets.
    await admin.describeGroups(['kpm-stack-warmup']);
    await producer.connect();
    // InitProducerId via FindCoordinator(TRANSACTION): creates or loads __transaction_state.
    const transaction = await producer.transaction();
    await transaction.abort();
  } finally {
    await producer.disconnect();
    await admin.disconnect();
  }
}
