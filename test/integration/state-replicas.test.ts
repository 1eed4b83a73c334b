import { eventually } from '@kpm/common';
import type { ServiceProcess } from '../support/service-process';
import { StateBench, stateProcess } from '../support/state-bench';
import {
  bootAccepted,
  killAccepted,
  processBooted,
  terminated,
  testProcesses,
  type TestProcess,
} from '../support/state-facts';
import { uniqueTopicPrefix } from '../support/stack-env';

/**
 * Two state replicas split the partitions (so the sessions); a replica that stops answering
 * (SIGSTOP: a zombie that wakes up later) loses its partitions to the other, whose transactions
 * fence it, and every command still completes exactly once.
 */
describe('state service: two replicas', () => {
  const prefix = uniqueTopicPrefix('state-replicas');
  const sessions = Array.from({ length: 8 }, (_, i) => `daq-${i}`);
  const processes = new Map<string, TestProcess[]>(sessions.map((s) => [s, testProcesses(s, 3)]));
  const replicas: ServiceProcess[] = [];
  let bench: StateBench;

  const owned = async (replica: ServiceProcess): Promise<number> => {
    const metrics = await (await fetch(`${replica.url}/metrics`)).text();
    return Number(/kpm_state_owned_partitions\{[^}]*\} (\d+)/.exec(metrics)?.[1] ?? NaN);
  };
  beforeAll(async () => {
    for (const name of ['state-a', 'state-b']) {
      const replica = stateProcess(prefix, name, { KPM_STATE_SESSION_TIMEOUT_MS: '6000' });
      await replica.start();
      replicas.push(replica);
    }
    bench = await new StateBench(prefix, ['completions']).start();
  }, 240_000);

  afterAll(async () => {
    await bench?.stop();
    for (const replica of replicas) {
      replica.signal('SIGCONT');
      await replica.kill('SIGTERM');
    }
  }, 60_000);

  it('splits the partitions and both replicas show every session', async () => {
    await eventually(
      async () => (await owned(replicas[0])) === 3 && (await owned(replicas[1])) === 3,
      { what: '3 + 3 partitions', everyMs: 200, timeoutMs: 60_000 },
    );
    for (const session of sessions) {
      const list = processes.get(session)!;
      await bench.send(
        'process-events',
        bootAccepted(`boot-${session}`, session, list),
        ...list.map((p) => processBooted(`boot-${session}`, p)),
      );
    }
    for (const session of sessions) await bench.completion(`boot-${session}`);
    for (const replica of replicas) {
      await eventually(
        async () => {
          const body = (await (await fetch(`${replica.url}/v1/sessions`)).json()) as {
            sessions: unknown[];
          };
          return body.sessions.length === sessions.length;
        },
        { what: 'the view of every session', everyMs: 200, timeoutMs: 60_000 },
      );
    }
  }, 120_000);

  it("moves a stalled replica's partitions to the other and completes every kill once", async () => {
    for (const session of sessions) {
      const [first, second] = processes.get(session)!;
      await bench.send(
        'process-events',
        killAccepted(`kill-${session}`, session, processes.get(session)!),
      );
      await bench.send('terminations', terminated(first, 143), terminated(second, 0));
    }
    // Each open kill is visible on exactly the replica that owns its session.
    await eventually(
      async () => {
        const answers = await Promise.all(
          sessions.flatMap((s) =>
            replicas.map((r) => fetch(`${r.url}/v1/commands/kill-${s}`).then((x) => x.status)),
          ),
        );
        return answers.filter((status) => status === 200).length === sessions.length;
      },
      { what: 'open kills on their owners', everyMs: 200, timeoutMs: 60_000 },
    );

    replicas[0].signal('SIGSTOP'); // a zombie: alive, silent, still holding producers and state
    await eventually(async () => (await owned(replicas[1])) === 6, {
      what: 'the other replica owning all 6',
      everyMs: 200,
      timeoutMs: 60_000,
    });
    for (const session of sessions)
      await bench.send('terminations', terminated(processes.get(session)![2], 137));
    for (const session of sessions) {
      const done = await bench.completion(`kill-${session}`);
      expect(done.status).toBe('succeeded');
      expect(done.processes.map((p) => p.returnCode)).toEqual([143, 0, 137]);
    }

    replicas[0].signal('SIGCONT'); // the zombie wakes: fenced, it must publish nothing
    await eventually(
      async () => (await owned(replicas[0])) === 3 && (await owned(replicas[1])) === 3,
      { what: '3 + 3 partitions again', everyMs: 200, timeoutMs: 60_000 },
    );
    // Prove both are live again and every earlier command is still answered once.
    const fresh = testProcesses(sessions[0], 1, 'late');
    await bench.send(
      'process-events',
      bootAccepted('boot-late', sessions[0], fresh),
      processBooted('boot-late', fresh[0]),
    );
    await bench.completion('boot-late');
    if (process.env.KPM_TEST_VERBOSE) console.log(replicas[0].logs());
    for (const replica of replicas) expect((await fetch(`${replica.url}/readyz`)).status).toBe(200);
    for (const session of sessions) {
      expect(bench.completions(`boot-${session}`)).toBe(1);
      expect(bench.completions(`kill-${session}`)).toBe(1);
    }
  }, 180_000);
});
