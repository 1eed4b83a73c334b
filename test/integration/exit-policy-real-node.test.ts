/**
 * Exit policies on the local stack's real node, through the whole system (boot-worker, watcher,
 * state): real processes that really exit, decided on by the state service, restarted by the
 * boot-worker with the same uuid, their steps told on kpm.completions and kpm.broadcast
 * (docs/design.md §4 "Exit policy").
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { connectProcessManager, type ProcessManagerClient } from '@kpm/client';
import {
  CommandType,
  CompletionType,
  topicName,
  type AutomaticAction,
  type CommandCompleted,
  type ExitPolicy,
  type ProcessSpec,
} from '@kpm/contracts';
import { LOCAL_SERVICE_SETTINGS } from '@kpm/stack';
import { KpmTrio } from '../support/kpm-trio';
import { logLineOf } from '../support/pod-log';
import { PodTimeline } from '../support/pod-timeline';
import { realNode, realNodeBootEnv, standin } from '../support/real-node';
import { stackEnv } from '../support/stack-env';
import { TopicProbe, type ProbedRecord } from '../support/topic-probe';

jest.setTimeout(300_000);

/** The stack's uid and gid for a user no runAsUsers entry maps (alice, here). */
const [DEFAULT_UID, DEFAULT_GID] = LOCAL_SERVICE_SETTINGS.KPM_DEFAULT_RUN_AS.split(':').map(Number);

const target = realNode();
/** The allowed host prefix, and under it a directory the processes' user may write. */
const hostDir = mkdtempSync(join(tmpdir(), 'kpm-exit-policy-'));
chmodSync(hostDir, 0o755);
const site = join(hostDir, 'site');
let h: KpmTrio;
let client: ProcessManagerClient;
let probe: TopicProbe;
const kubeconfig = new KubeConfig();

const onNode = (name: string, extra: Partial<ProcessSpec>): ProcessSpec => ({
  name,
  executableAndArguments: standin('--log-every', '5s'),
  restriction: { allowedHosts: [target.node] },
  ...extra,
});

beforeAll(async () => {
  mkdirSync(site, { mode: 0o755 });
  chownSync(site, DEFAULT_UID, DEFAULT_GID);
  h = await KpmTrio.start('exit-policy', {
    ...realNodeBootEnv(target),
    KPM_HOST_PATH_PREFIXES: hostDir,
    KPM_KILL_TIMEOUT_SECONDS: '20',
  });
  kubeconfig.loadFromFile(stackEnv().kubeconfig!);
  client = connectProcessManager({
    brokers: stackEnv().brokers,
    topicPrefix: h.prefix,
    user: 'alice',
  });
  probe = await new TopicProbe(
    stackEnv().brokers,
    ['completions', 'broadcast', 'commands', 'terminations'].map((t) =>
      topicName(t as 'completions', h.prefix),
    ),
  ).start();
}, 240_000);

afterAll(async () => {
  await probe?.stop();
  await client?.close();
  await h?.close();
  rmSync(hostDir, { recursive: true, force: true });
}, 180_000);

/** The completion of an automatic command on `uuid`'s end with this attempt (or any). */
function automaticCompletion(uuid: string, attempt?: number): Promise<CommandCompleted> {
  return probe
    .waitFor((r) => {
      const c = completionOf(r);
      return (
        c?.automatic?.uuid === uuid && (attempt === undefined || c.automatic.attempt === attempt)
      );
    }, 120_000)
    .then((r) => completionOf(r)!);
}

function completionOf(r: ProbedRecord): CommandCompleted | undefined {
  return r.event?.type === CompletionType.commandCompleted
    ? (r.event.data as unknown as CommandCompleted)
    : undefined;
}

/** The TEXT_MESSAGE broadcast of an automatic step on `uuid`. */
function automaticStep(uuid: string, outcome: AutomaticAction['outcome']): Promise<ProbedRecord> {
  return probe.waitFor((r) => {
    const broadcast = r.event?.data as { data?: { automatic?: AutomaticAction } } | undefined;
    const automatic = broadcast?.data?.automatic;
    return automatic?.uuid === uuid && automatic.outcome === outcome;
  }, 120_000);
}

/** Automatic commands sent for `uuid`'s ends, as seen on kpm.commands so far. */
function automaticCommands(uuid: string): AutomaticAction[] {
  return probe.records.flatMap((r) => {
    const data = r.event?.data as { automatic?: AutomaticAction } | undefined;
    return r.topic.endsWith('commands') && data?.automatic?.uuid === uuid ? [data.automatic] : [];
  });
}

it('restarts a process that exits 3 twice, with the same uuid, and says so', async () => {
  const session = h.session('flaky');
  const count = join(site, session, 'count');
  // Each start adds a line to a file on the host; the first two exit 3, the third stays up. (No
  // shell parameters: kpm's command line expands them, as drunc's does, before this bash runs.)
  const runs = `$(wc -l < ${count})`;
  const script = `echo run >> ${count}; echo "runs ${runs}"; [ "${runs}" -gt 2 ] || exit 3`;
  const policy: ExitPolicy = {
    rules: [{ action: 'Restart', exitCodes: { operator: 'In', values: [3] } }],
    maxRestarts: 3,
    backoffSeconds: 1,
  };
  const timeline = await new PodTimeline(kubeconfig, session).start();
  const booted = await client.boot(
    {
      session,
      user: 'alice',
      exitPolicy: policy,
      processes: [
        onNode('flaky', {
          logsPath: join(site, session),
          executableAndArguments: [{ exec: 'bash', args: ['-c', script] }, ...standin()],
        }),
      ],
    },
    { wait: true },
  );
  const uuid = booted.completion!.processes[0].uuid;

  const first = await automaticCompletion(uuid, 1);
  const second = await automaticCompletion(uuid, 2);
  for (const [done, attempt] of [
    [first, 1],
    [second, 2],
  ] as const) {
    expect(done).toMatchObject({
      commandType: CommandType.restart,
      session,
      status: 'succeeded',
      automatic: { action: 'Restart', rule: 0, exitCode: 3, attempt, of: 3, decidedBy: 'state' },
    });
    expect(done.processes.map((p) => p.uuid)).toEqual([uuid]);
  }
  expect(first.commandId).not.toBe(second.commandId);
  await automaticStep(uuid, 'scheduled');
  await automaticStep(uuid, 'issued');

  const [row] = await client.ps({ session });
  expect(row).toMatchObject({ uuid, statusCode: 'RUNNING', automatic: { restarts: 2 } });
  // The row is RUNNING from the pod's creation; the third pod's process has counted once it
  // runs and says so.
  let third = -1;
  for (let pod = 0; pod < 3; pod++)
    third = await timeline.waitFor('a flaky pod', (m) => m.type === 'ADDED', third + 1);
  await timeline.waitFor('the third pod Running', (m) => m.phase === 'Running', third);
  timeline.stop();
  await logLineOf(kubeconfig, { namespace: session, pod: 'flaky' }, (l) => l === 'runs 3');
  expect(readFileSync(count, 'utf8')).toBe('run\nrun\nrun\n');
  expect(automaticCommands(uuid).map((a) => a.attempt)).toEqual([1, 2]);
});

it("fails the session on 139 with a rule: a terminate in drunc's order, saying why", async () => {
  const session = h.session('fatal');
  const booted = await client.boot(
    {
      session,
      user: 'alice',
      exitPolicy: {
        rules: [{ action: 'FailSession', exitCodes: { operator: 'In', values: [139] } }],
      },
      processes: [
        onNode('root', {
          treeId: '0',
          executableAndArguments: [{ exec: 'drunc-controller', args: ['--log-every', '5s'] }],
        }),
        onNode('ru-01', {
          treeId: '0.1.1',
          executableAndArguments: standin('--exit', '139', '--after', '3s'),
        }),
        onNode('ru-02', { treeId: '0.1.2' }),
      ],
    },
    { wait: true },
  );
  const uuids = Object.fromEntries(
    booted.completion!.processes.map((p) => [p.description.metadata.name, p.uuid]),
  );
  const done = await automaticCompletion(uuids['ru-01']);
  expect(done).toMatchObject({
    commandType: CommandType.terminate,
    session,
    status: 'succeeded',
    automatic: { action: 'FailSession', outcome: 'session-failed', exitCode: 139, rule: 0 },
  });
  expect(done.processes.map((p) => p.statusCode)).toEqual(['DEAD', 'DEAD', 'DEAD']);
  // drunc's order: the application before its root controller.
  const ended = (name: string) =>
    probe.records.findIndex(
      (r) =>
        r.topic.endsWith('terminations') &&
        (r.event?.data as { uuid?: string } | undefined)?.uuid === uuids[name],
    );
  expect(ended('ru-01')).toBeGreaterThanOrEqual(0);
  expect(ended('ru-02')).toBeLessThan(ended('root'));
  expect(ended('ru-02')).toBeGreaterThanOrEqual(0);
});

it('leaves a process DEAD with the reason once its restart budget is spent', async () => {
  const session = h.session('spent');
  const booted = await client.boot(
    {
      session,
      user: 'alice',
      processes: [
        onNode('crashy', {
          executableAndArguments: standin('--exit', '3', '--after', '1s'),
          exitPolicy: { rules: [{ action: 'Restart' }], maxRestarts: 1, backoffSeconds: 1 },
        }),
      ],
    },
    { wait: true },
  );
  const uuid = booted.completion!.processes[0].uuid;
  await automaticCompletion(uuid, 1);
  await automaticStep(uuid, 'exhausted');
  const [row] = await client.ps({ session });
  expect(row).toMatchObject({
    uuid,
    statusCode: 'DEAD',
    returnCode: 3,
    reason: 'Error',
    automatic: { restarts: 1, last: { outcome: 'exhausted', of: 1 } },
  });
  expect(row.automatic!.last!.message).toBe(
    'exit 3 (Error) matched rules[0]: restart budget spent (1 of 1 in 600 s), left DEAD',
  );
  expect(automaticCommands(uuid)).toHaveLength(1);
});

it("a user's kill during the backoff wins: the process is not restarted", async () => {
  const session = h.session('wins');
  const crash = standin('--exit', '3', '--after', '1s');
  const restartAfter = (backoffSeconds: number): ExitPolicy => ({
    rules: [{ action: 'Restart' }],
    backoffSeconds,
  });
  const booted = await client.boot(
    {
      session,
      user: 'alice',
      processes: [
        onNode('killed', { executableAndArguments: crash, exitPolicy: restartAfter(6) }),
        // Restarted after a longer backoff: once it is, the killed one's restart was due long ago.
        onNode('witness', { executableAndArguments: crash, exitPolicy: restartAfter(15) }),
      ],
    },
    { wait: true },
  );
  const uuid = (name: string) =>
    booted.completion!.processes.find((p) => p.description.metadata.name === name)!.uuid;
  await automaticStep(uuid('killed'), 'scheduled');
  const kill = await client.kill({ query: { session, names: ['^killed$'] } }, { wait: true });
  expect(kill.completion?.status).toBe('succeeded');
  await automaticStep(uuid('killed'), 'cancelled');

  await automaticCompletion(uuid('witness'), 1);
  expect(automaticCommands(uuid('killed'))).toEqual([]);
  const killed = (await client.ps({ session })).find((p) => p.uuid === uuid('killed'))!;
  expect(killed).toMatchObject({
    statusCode: 'DEAD',
    automatic: { restarts: 0, last: { outcome: 'cancelled', cancelledBy: kill.commandId } },
  });
});
