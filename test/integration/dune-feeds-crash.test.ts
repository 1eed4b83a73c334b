/**
 * DUNE's feeds are exactly once across a state restart (docs/design.md §5.7): the state service,
 * fed facts directly, is SIGKILLed after a death was published and before another was, and an
 * independent consumer (Python, confluent-kafka, classes generated from apps/state/proto) reads
 * one ERS issue and one SUBPROCESS_STATUS_UPDATE per death, none for an end a kill asked for.
 */
import { DuneFeeds, suiteFeeds, type FeedRecord } from '../support/dune-feeds';
import type { ServiceProcess } from '../support/service-process';
import { isCompletion, StateBench, stateProcess } from '../support/state-bench';
import {
  bootAccepted,
  killAccepted,
  processBooted,
  terminated,
  testProcesses,
} from '../support/state-facts';
import { uniqueTopicPrefix } from '../support/stack-env';

jest.setTimeout(180_000);

const prefix = uniqueTopicPrefix('feeds-crash');
const feeds = suiteFeeds(prefix);
const session = 'run-feeds';
let state: ServiceProcess;
let bench: StateBench;
let consumer: DuneFeeds;

const [first, second, killed] = testProcesses(session, 3);
const [marker] = testProcesses(session, 1, 'marker');

const ersOf = (name: string) => (r: FeedRecord) =>
  r.kind === 'ers' && r.parameters?.process === name;
const updateOf = (name: string) => (r: FeedRecord) =>
  r.kind === 'broadcast' &&
  r.type === 'SUBPROCESS_STATUS_UPDATE' &&
  (r.text ?? '').startsWith(`Pod '${name}' (session: '${session}'`);

beforeAll(async () => {
  consumer = await new DuneFeeds(feeds.topics).start();
  // A SIGKILLed member holds its partitions until its session times out: keep that short.
  state = stateProcess(prefix, 'feeds-crash', {
    KPM_STATE_SESSION_TIMEOUT_MS: '6000',
    ...feeds.env,
  });
  await state.start();
  bench = await new StateBench(prefix, ['completions', 'broadcast']).start();
}, 180_000);

afterAll(async () => {
  await consumer?.stop();
  await bench?.stop();
  await state?.kill('SIGTERM');
}, 60_000);

it("says drunc's SERVER_READY as it starts, and COMMAND_EXECUTION_SUCCESS for a boot", async () => {
  const ready = await consumer.waitFor((r) => r.type === 'SERVER_READY');
  expect(ready).toMatchObject({
    text: 'ready',
    emitter: { process: 'process_manager', session: `kpm-${prefix}` },
    key: null,
    typeUrl: 'type.googleapis.com/dunedaq.druncschema.PlainText',
  });
  const all = [first, second, killed, marker];
  await bench.send(
    'process-events',
    bootAccepted('boot-f', session, all),
    ...all.map((p) => processBooted('boot-f', p)),
  );
  await bench.probe.waitFor(isCompletion('boot-f'));
  await consumer.waitFor(
    (r) =>
      r.type === 'COMMAND_EXECUTION_SUCCESS' &&
      r.text === "User 'daq' successfully executed 'boot'",
  );
});

it('publishes each death once, whether the state service was SIGKILLed after publishing one or before', async () => {
  await bench.send('terminations', terminated(first, 3));
  const issue = await consumer.waitFor(ersOf(first.name));
  expect(issue).toMatchObject({
    key: session,
    session,
    application: 'drunc.process_manager',
    severity: 'CRITICAL',
    message: `Process ${first.name} has died with a return code 3`,
  });
  await consumer.waitFor(updateOf(first.name));

  // Killed after the first death was published and before the second is read: the restart
  // replays the first (publishing nothing) and publishes the second in its first transaction.
  await state.kill('SIGKILL');
  await bench.send('terminations', terminated(second, 3));
  await state.start();
  await consumer.waitFor(ersOf(second.name));

  // An end a kill asked for is no death. The termination is sent once the state has applied the
  // kill (its COMMAND_EXECUTION_START): two topics have no order between them, and this
  // termination carries no deletionRequestedAt (the watcher's mark of a pod being deleted, which
  // makes an end expected whatever arrives first), so only the kill tells it apart.
  await bench.send('process-events', killAccepted('kill-f', session, [killed]));
  await bench.probe.waitFor(
    (r) =>
      r.event?.data?.broadcastType === 'COMMAND_EXECUTION_START' &&
      (r.event.data.data as { commandId?: string }).commandId === 'kill-f',
  );
  await bench.send('terminations', terminated(killed, 143));
  await bench.probe.waitFor(isCompletion('kill-f'));
  await consumer.waitFor(updateOf(killed.name));

  // The marker's issue comes after everything above on the one partition of each topic.
  await bench.send('terminations', terminated(marker, 4));
  await consumer.waitFor(ersOf(marker.name));
  await consumer.waitFor(updateOf(marker.name));
  const count = (predicate: (r: FeedRecord) => boolean) =>
    consumer.records.filter(predicate).length;
  expect([first, second, killed, marker].map((p) => count(ersOf(p.name)))).toEqual([1, 1, 0, 1]);
  expect([first, second, killed, marker].map((p) => count(updateOf(p.name)))).toEqual([1, 1, 1, 1]);
  expect(count((r) => r.type === 'SERVER_READY')).toBe(2);
});
