/**
 * An exit policy's automatic restart is sent exactly once across a state restart
 * (docs/design.md §4 "Exit policy"): the state service, fed facts directly, is SIGKILLed while a
 * restart waits for its backoff — the restarted service re-arms it from the restored row and
 * sends it once, at its due time — and again after one was sent — the restarted service does not
 * send it again.
 */
import {
  buildEvent,
  CommandType,
  ProcessEventType,
  type AutomaticAction,
  type ExitPolicy,
  type KpmEvent,
} from '@kpm/contracts';
import type { ServiceProcess } from '../support/service-process';
import { isCompletion, StateBench, stateProcess } from '../support/state-bench';
import {
  bootAccepted,
  instanceOf,
  terminated,
  testProcesses,
  type TestProcess,
} from '../support/state-facts';
import type { ProbedRecord } from '../support/topic-probe';
import { uniqueTopicPrefix } from '../support/stack-env';

jest.setTimeout(180_000);

const prefix = uniqueTopicPrefix('exit-crash');
const session = 'run-exit';
let state: ServiceProcess;
let bench: StateBench;

const [waiting, sent] = testProcesses(session, 2);
const policy = (backoffSeconds: number): ExitPolicy => ({
  rules: [{ action: 'Restart' }],
  backoffSeconds,
});

function booted(commandId: string, p: TestProcess, exitPolicy: ExitPolicy): KpmEvent {
  return buildEvent({
    id: `booted-${p.podUid}`,
    type: ProcessEventType.processBooted,
    source: '/kpm/test/exit-crash',
    subject: session,
    data: { commandId, process: { ...instanceOf(p), exitPolicy } },
  });
}

/** The automatic restarts of `p` on kpm.commands so far. */
const restartsOf = (p: TestProcess) =>
  bench.probe.records.filter(
    (r) => automaticOf(r)?.uuid === p.uuid && r.topic.endsWith('commands'),
  );
const automaticOf = (r: ProbedRecord) =>
  r.event?.type === CommandType.restart
    ? (r.event.data as { automatic?: AutomaticAction }).automatic
    : undefined;

/**
 * Everything the state service committed on kpm.commands before now has been read: a ps sent
 * after its answer lands behind all of it in the session's partition, and is read after it.
 */
async function drained(marker: string): Promise<void> {
  const ps = (id: string) =>
    buildEvent({
      id,
      type: CommandType.ps,
      source: '/kpm/test/exit-crash',
      subject: session,
      data: { query: { session } },
    });
  await bench.send('commands', ps(`${marker}-a`));
  await bench.probe.waitFor(isCompletion(`${marker}-a`), 60_000);
  await bench.send('commands', ps(`${marker}-b`));
  await bench.probe.waitFor((r) => r.event?.id === `${marker}-b`, 60_000);
}

beforeAll(async () => {
  // A SIGKILLed member holds its partitions until its session times out: keep that short.
  state = stateProcess(prefix, 'exit-crash', { KPM_STATE_SESSION_TIMEOUT_MS: '6000' });
  await state.start();
  bench = await new StateBench(prefix, ['completions', 'broadcast', 'commands']).start();
  await bench.send(
    'process-events',
    bootAccepted('boot-x', session, [waiting, sent]),
    booted('boot-x', waiting, policy(15)),
    booted('boot-x', sent, policy(1)),
  );
  await bench.probe.waitFor(isCompletion('boot-x'));
}, 180_000);

afterAll(async () => {
  await bench?.stop();
  await state?.kill('SIGTERM');
}, 60_000);

it('re-arms a restart that waited through a SIGKILL, and sends it once at its due time', async () => {
  await bench.send('terminations', terminated(waiting, 3));
  const scheduled = await bench.probe.waitFor((r) => {
    const broadcast = r.event?.data as { data?: { automatic?: AutomaticAction } } | undefined;
    const automatic = broadcast?.data?.automatic;
    return automatic?.uuid === waiting.uuid && automatic.outcome === 'scheduled';
  });
  const dueAt = (scheduled.event!.data as { data: { automatic: AutomaticAction } }).data.automatic
    .dueAt!;

  await state.kill('SIGKILL');
  expect(restartsOf(waiting)).toEqual([]);
  await state.start();

  const restart = await bench.probe.waitFor((r) => automaticOf(r)?.uuid === waiting.uuid, 60_000);
  expect(automaticOf(restart)).toMatchObject({ outcome: 'issued', attempt: 1, dueAt });
  expect(restart.timestamp).toBeGreaterThanOrEqual(Date.parse(dueAt));
  await drained('after-waiting');
  expect(restartsOf(waiting)).toHaveLength(1);
});

it('does not send again a restart sent before a SIGKILL', async () => {
  await bench.send('terminations', terminated(sent, 3));
  await bench.probe.waitFor((r) => automaticOf(r)?.uuid === sent.uuid, 60_000);

  await state.kill('SIGKILL');
  await state.start();
  await drained('after-sent');
  expect(restartsOf(sent)).toHaveLength(1);
});
