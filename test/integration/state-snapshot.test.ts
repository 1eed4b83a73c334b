import { Kafka, logLevel } from 'kafkajs';
import { topicName } from '@kpm/contracts';
import { fetchMetric } from '../support/metrics';
import type { ServiceProcess } from '../support/service-process';
import { StateBench, stateProcess } from '../support/state-bench';
import {
  bootAccepted,
  killAccepted,
  processBooted,
  terminated,
  testProcesses,
} from '../support/state-facts';
import { stackEnv, uniqueTopicPrefix } from '../support/stack-env';
import type { ProbedRecord } from '../support/topic-probe';

/**
 * Restore that does not grow with history (docs/design.md §9.4): the state service writes each
 * shard's snapshot to `kpm.state-snapshots`; a restart loads it and replays only the facts after
 * it; an unusable snapshot costs time, never correctness.
 */
jest.setTimeout(240_000);

const prefix = uniqueTopicPrefix('snapshot');
const session = 'snap-run';
const many = testProcesses(session, 300, 'app');
const ended = many.slice(0, 250);
const env = {
  KPM_STATE_SNAPSHOT_EVERY_RECORDS: '100',
  KPM_STATE_SNAPSHOT_INTERVAL_SECONDS: '1',
};
let state: ServiceProcess;
let bench: StateBench;

/** A snapshot head whose fact positions cover `events` process-events and `ends` terminations. */
const headCovering =
  (events: number, ends: number) =>
  (r: ProbedRecord): boolean => {
    if (r.topic !== topicName('state-snapshots', prefix) || !r.key?.endsWith('/head')) return false;
    const head = JSON.parse(r.value!.toString()) as { inputs: Record<string, string> };
    return (
      head.inputs[topicName('process-events', prefix)] === String(events) &&
      head.inputs[topicName('terminations', prefix)] === String(ends)
    );
  };

beforeAll(async () => {
  state = stateProcess(prefix, 'state-snapshot', env);
  await state.start();
  bench = await new StateBench(prefix, ['completions', 'state-snapshots']).start();
});

afterAll(async () => {
  await bench?.stop();
  await state?.kill('SIGTERM');
});

it('restores from its snapshot, replaying none of the facts before it, and completes once', async () => {
  await bench.send(
    'process-events',
    bootAccepted('snap-boot', session, many),
    ...many.map((p) => processBooted('snap-boot', p)),
    killAccepted('snap-kill', session, many, 600),
  );
  await bench.send('terminations', ...ended.map((p) => terminated(p, 143)));
  expect((await bench.completion('snap-boot', 60_000)).status).toBe('succeeded');
  await bench.probe.waitFor(headCovering(302, 250), 60_000);

  await state.kill('SIGTERM');
  await state.start();
  expect(await fetchMetric(state.url, 'kpm_state_restore_replayed_facts_total')).toBe(0);
  const open = (await (await fetch(`${state.url}/v1/commands/snap-kill`)).json()) as {
    pending?: string[];
  };
  expect(open.pending).toHaveLength(50);

  await bench.send('terminations', ...many.slice(250).map((p) => terminated(p, 137)));
  const kill = await bench.completion('snap-kill', 60_000);
  expect(kill.status).toBe('succeeded');
  expect(kill.processes.filter((p) => p.statusCode === 'DEAD')).toHaveLength(300);
  await bench.probe.waitFor(headCovering(302, 300), 60_000);
  expect(bench.completions('snap-boot')).toBe(1);
  expect(bench.completions('snap-kill')).toBe(1);
});

it('reads the whole history instead when the last snapshot cannot be used', async () => {
  const producer = new Kafka({
    brokers: stackEnv().brokers,
    logLevel: logLevel.NOTHING,
  }).producer();
  await producer.connect();
  const heads = bench.probe.records.filter((r) => r.key?.endsWith('/head'));
  const shard = Number(heads.at(-1)!.partition);
  await producer.send({
    topic: topicName('state-snapshots', prefix),
    acks: -1,
    messages: [{ partition: shard, key: `${shard}/head`, value: '{"format":"not-kpm"}' }],
  });
  await producer.disconnect();

  await state.kill('SIGTERM');
  await state.start();
  // 302 process-events and 300 terminations replayed from the beginning.
  expect(await fetchMetric(state.url, 'kpm_state_restore_replayed_facts_total')).toBe(602);
  // The snapshot is not used: the whole history is read (the event operators filter on).
  expect(state.logs()).toMatch(/snapshot\.unusable partition=\d/);
  const rows = (await (await fetch(`${state.url}/v1/sessions`)).json()) as { sessions: unknown[] };
  expect(rows.sessions).toEqual([{ session, running: 0, dead: 300 }]);
  expect(bench.completions('snap-kill')).toBe(1);
});
