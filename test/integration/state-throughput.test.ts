import type { ServiceProcess } from '../support/service-process';
import { StateBench, stateProcess } from '../support/state-bench';
import {
  bootAccepted,
  killAccepted,
  processBooted,
  terminated,
  testProcesses,
} from '../support/state-facts';
import { uniqueTopicPrefix } from '../support/stack-env';

/** How fast one state replica keeps up with a 1000-process boot and kill on this machine. */
describe('state service: 1000 processes', () => {
  const prefix = uniqueTopicPrefix('state-load');
  const session = 'big-run';
  const many = testProcesses(session, 1000, 'app');
  let state: ServiceProcess;
  let bench: StateBench;

  beforeAll(async () => {
    state = stateProcess(prefix, 'state-load');
    await state.start();
    bench = await new StateBench(prefix, ['completions']).start();
  }, 180_000);

  afterAll(async () => {
    await bench?.stop();
    await state?.kill('SIGTERM');
  }, 60_000);

  it('completes a 1000-process boot and a 1000-process kill, and restores them quickly', async () => {
    const bootStart = Date.now();
    await bench.send(
      'process-events',
      bootAccepted('boot-1000', session, many),
      ...many.map((p) => processBooted('boot-1000', p)),
    );
    const boot = await bench.completion('boot-1000', 60_000);
    const bootMs = Date.now() - bootStart;
    expect(boot.processes).toHaveLength(1000);

    const killStart = Date.now();
    await bench.send('process-events', killAccepted('kill-1000', session, many));
    await bench.send('terminations', ...many.map((p, i) => terminated(p, i % 7 === 0 ? 137 : 143)));
    const kill = await bench.completion('kill-1000', 60_000);
    const killMs = Date.now() - killStart;
    expect(kill.status).toBe('succeeded');
    expect(kill.processes.filter((p) => p.statusCode === 'DEAD')).toHaveLength(1000);

    const restartStart = Date.now();
    await state.kill('SIGTERM');
    const stoppedMs = Date.now() - restartStart;
    await state.start();
    const restartMs = Date.now() - restartStart;
    if (process.env.KPM_TEST_VERBOSE) console.log(`stopped in ${stoppedMs} ms\n${state.logs()}`);
    const rows = (await (await fetch(`${state.url}/v1/sessions`)).json()) as {
      sessions: unknown[];
    };
    expect(rows.sessions).toEqual([{ session, running: 0, dead: 1000 }]);
    console.log(
      `state, 1000 processes: boot facts → completion ${bootMs} ms; kill.accepted + 1000 terminations → completion ${killMs} ms; ` +
        `graceful restart to ready (restore of 2002 facts, 1000 rows) ${restartMs} ms`,
    );
    expect(bootMs).toBeLessThan(30_000);
    expect(killMs).toBeLessThan(30_000);
  }, 240_000);
});
