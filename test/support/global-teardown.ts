// globalTeardown runs outside jest's module mapper: resolve @kpm/* through tsconfig's paths.
import 'tsconfig-paths/register';
import { Kafka, logLevel } from 'kafkajs';
import { takeTestPrefixes, topicsOfPrefixes } from './test-topics';

/** Deletes the topics this run's suites made (test/support/test-topics.ts). */
export default async function globalTeardown(): Promise<void> {
  const prefixes = takeTestPrefixes();
  const brokers = process.env.KPM_KAFKA_BROKERS;
  if (prefixes.length === 0 || !brokers) return;
  const admin = new Kafka({
    clientId: 'kpm-test-teardown',
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    const topics = topicsOfPrefixes(await admin.listTopics(), prefixes);
    for (let i = 0; i < topics.length; i += 200) {
      await admin.deleteTopics({ topics: topics.slice(i, i + 200), timeout: 30_000 });
    }
    process.stdout.write(
      `[stack] deleted ${topics.length} topics of ${prefixes.length} test prefixes\n`,
    );
  } catch (error) {
    // Hygiene of a shared stack, not a result of the run: say so and leave them.
    process.stdout.write(`[stack] test topics left on the broker: ${(error as Error).message}\n`);
  } finally {
    await admin.disconnect();
  }
}
