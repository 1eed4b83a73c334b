import { Kafka, logLevel, type Admin } from 'kafkajs';
import { CommandType, DEFAULT_PARTITIONS, topicName } from '@kpm/contracts';
import { StateBench, stateProcess } from '../../test/support/state-bench';
import {
  bootAccepted,
  killAccepted,
  processBooted,
  queryCommand,
  terminated,
  testProcesses,
} from '../../test/support/state-facts';
import { stackEnv, uniqueTopicPrefix } from '../../test/support/stack-env';
import type { ServiceProcess } from '../../test/support/service-process';
import type { ProbedRecord } from '../../test/support/topic-probe';
import { fetchMetric } from '../../test/support/metrics';
import { murmur2Partition } from '../../test/support/partitioners';
import { rssMb } from './kpm-services';
import type { RestorePoint } from './results';

/** Sessions are this big; the history grows by whole sessions, all on partition 0. */
const SESSION_PROCESSES = 1000;
/** The bench's state writes a snapshot within this long of its last record. */
const SNAPSHOT_INTERVAL_SECONDS = 2;

/**
 * One DAQ run on the fact topics, its completions awaited, then flushed as an operator does
 * once a run is over: 2n + 2 facts and a flush. The history grows; the table does not.
 */
async function liveSession(bench: StateBench, name: string): Promise<number> {
  const processes = testProcesses(name, SESSION_PROCESSES, 'app');
  await bench.send(
    'process-events',
    bootAccepted(`${name}-boot`, name, processes),
    ...processes.map((p) => processBooted(`${name}-boot`, p)),
  );
  await bench.completion(`${name}-boot`, 300_000);
  await bench.send('process-events', killAccepted(`${name}-kill`, name, processes));
  await bench.send('terminations', ...processes.map((p) => terminated(p, 143)));
  await bench.completion(`${name}-kill`, 300_000);
  await bench.send('commands', queryCommand(CommandType.flush, `${name}-flush`, name));
  await bench.completion(`${name}-flush`, 300_000);
  return 2 * SESSION_PROCESSES + 2;
}

/** The `i`th run's session: a name whose records land on partition 0, as every other run's. */
function sessionOnPartition0(i: number): string {
  for (let k = 0; ; k++) {
    const name = `restore-${i}-${k}`;
    if (murmur2Partition(name, DEFAULT_PARTITIONS) === 0) return name;
  }
}

/** A state service's own restore metrics: seconds and facts replayed, summed over its restores. */
async function restoreMetrics(
  state: ServiceProcess,
): Promise<{ seconds: number; replayed: number }> {
  return {
    seconds: await fetchMetric(state.url, 'kpm_state_restore_seconds_sum'),
    replayed: await fetchMetric(state.url, 'kpm_state_restore_replayed_facts_total'),
  };
}

/**
 * Resolves once every partition has a snapshot, read after `sinceMs` (heads spoilt before it),
 * that covers all of its facts (its next offsets).
 */
async function snapshotsCoverFacts(
  admin: Admin,
  bench: StateBench,
  prefix: string,
  sinceMs: number,
): Promise<void> {
  const facts = [topicName('process-events', prefix), topicName('terminations', prefix)];
  const ends = await Promise.all(facts.map((t) => admin.fetchTopicOffsets(t)));
  const partitions = new Set(
    ends
      .flat()
      .filter((o) => o.high !== '0')
      .map((o) => o.partition),
  );
  const covers = (p: number) => (r: ProbedRecord) => {
    if (r.key !== `${p}/head` || r.topic !== topicName('state-snapshots', prefix)) return false;
    if (r.receivedAtMs < sinceMs) return false;
    const head = JSON.parse(r.value!.toString()) as { inputs?: Record<string, string> };
    return facts.every((t, i) => head.inputs?.[t] === ends[i].find((o) => o.partition === p)!.high);
  };
  await Promise.all([...partitions].map((p) => bench.probe.waitFor(covers(p), 120_000)));
}

/** Overwrites every partition's snapshot head with one no restore can use. */
async function spoilSnapshots(kafka: Kafka, prefix: string): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({
    topic: topicName('state-snapshots', prefix),
    acks: -1,
    messages: Array.from({ length: DEFAULT_PARTITIONS }, (_, p) => ({
      partition: p,
      key: `${p}/head`,
      value: '{"format":"spoilt by the bench"}',
    })),
  });
  await producer.disconnect();
}

/**
 * The state service's restore time against the size of one partition's history: DAQ runs of
 * 1000 processes are lived through on partition 0 (boot, kill, every termination, flush). At each size the service
 * is restarted twice: from its snapshot (written within 2 s of the last record: the measured
 * restore replays no tail), then with every snapshot head spoilt, so that it reads the whole
 * history as it did before snapshots (and writes new snapshots right after).
 */
export async function measureRestore(
  processes: readonly number[],
  log: (message: string) => void,
): Promise<RestorePoint[]> {
  const prefix = uniqueTopicPrefix('bench-restore');
  const state = stateProcess(prefix, 'bench-restore', {
    ...stackEnv().topicReplication,
    KPM_STATE_SNAPSHOT_INTERVAL_SECONDS: String(SNAPSHOT_INTERVAL_SECONDS),
  });
  await state.start(180_000);
  const bench = await new StateBench(prefix, ['completions', 'state-snapshots']).start();
  const kafka = new Kafka({ brokers: stackEnv().brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const points: RestorePoint[] = [];
  let lived = 0;
  let records = 0;
  let spoiltAt = 0;
  // A new process: its metrics are its one restore.
  const restart = async () => {
    await state.kill('SIGTERM');
    await state.start(600_000);
    return restoreMetrics(state);
  };
  try {
    for (const target of processes) {
      while (lived < target) {
        records += await liveSession(bench, sessionOnPartition0(lived / SESSION_PROCESSES));
        lived += SESSION_PROCESSES;
      }
      await snapshotsCoverFacts(admin, bench, prefix, spoiltAt);
      const fromSnapshot = await restart();
      const rss = rssMb(state.pid!) ?? 0;
      await spoilSnapshots(kafka, prefix);
      spoiltAt = Date.now();
      const whole = await restart();
      const point: RestorePoint = {
        processes: lived,
        records,
        seconds: fromSnapshot.seconds,
        replayed: fromSnapshot.replayed,
        wholeSeconds: whole.seconds,
        wholeReplayed: whole.replayed,
        rssMb: rss,
      };
      log(`  restore ${JSON.stringify(point)}`);
      points.push(point);
    }
  } finally {
    await admin.disconnect();
    await bench.stop();
    await state.kill('SIGTERM');
  }
  return points;
}
