/**
 * A DAQ session of real processes on the local stack's real node, through the whole system
 * (boot-worker, watcher, state) and its clients: drunc's boot order waiting on real readiness
 * probes (the connection server's port, the root controller's), the processes' real output as
 * `logs`, `kpm ps --live` from the cluster, a restart that really starts the process again with
 * the same uuid, and a terminate whose shutdown order is the order the processes really ended.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { connectProcessManager, type ProcessManagerClient } from '@kpm/client';
import type { ProcessSpec } from '@kpm/contracts';
import { repoRoot } from '@kpm/stack';
import { KpmTrio } from '../support/kpm-trio';
import { logLineOf } from '../support/pod-log';
import { PodTimeline } from '../support/pod-timeline';
import { projectPython, runPython } from '../support/python';
import { realNode, realNodeBootEnv, standin } from '../support/real-node';
import { stackEnv } from '../support/stack-env';
import { suitePorts } from '../support/suite-ports';

// drunc exposes the root controller and the connection server on their own ports as node ports.
const PORTS = suitePorts('real-node-session', 2);
const ROOT_PORT = PORTS.node(0);
const SERVER_PORT = PORTS.node(1);

jest.setTimeout(300_000);

const target = realNode();
let h: KpmTrio;
let client: ProcessManagerClient;
let session: string;
let timeline: PodTimeline;
const kubeconfig = new KubeConfig();

const onNode = { restriction: { allowedHosts: [target.node] } };
const onRealNode = (name: string, treeId: string, extra: Partial<ProcessSpec>): ProcessSpec => ({
  name,
  treeId,
  executableAndArguments: standin(),
  ...onNode,
  ...extra,
});

// drunc's shapes on real ports: the connection server (gunicorn's -b), the root controller
// (--port), an application. Each listens only after a while, so a boot that did not wait for
// readiness would create the next pod too early. The application ticks every 2 s: its start
// line stays within the last 50 lines for 100 s, however slowly the clients below ask.
const SESSION: ProcessSpec[] = [
  onRealNode('app-1', '0.1.1', {
    executableAndArguments: [
      {
        exec: 'daq_application',
        args: ['--name', 'app-1', '--log-every', '2s', '--quit-exit', '3'],
      },
    ],
  }),
  onRealNode('root', '0', {
    executableAndArguments: [
      {
        exec: 'drunc-controller',
        args: ['--port', String(ROOT_PORT), '--ready-after', '1500ms'],
      },
    ],
  }),
  onRealNode('local-connection-server', '1', {
    executableAndArguments: [
      { exec: 'gunicorn', args: ['-b', `0.0.0.0:${SERVER_PORT}`, '--ready-after', '1500ms'] },
    ],
  }),
];

beforeAll(async () => {
  h = await KpmTrio.start('real-session', {
    ...realNodeBootEnv(target),
    KPM_CONTROLLER_READINESS_PROBE: 'tcp',
    KPM_KILL_TIMEOUT_SECONDS: '10',
  });
  client = connectProcessManager({
    brokers: stackEnv().brokers,
    topicPrefix: h.prefix,
    user: 'alice',
  });
  session = h.session('real');
  kubeconfig.loadFromFile(stackEnv().kubeconfig!);
  timeline = await new PodTimeline(kubeconfig, session).start();
}, 240_000);

afterAll(async () => {
  timeline?.stop();
  await client?.close();
  await h?.close();
}, 180_000);

it("boots in drunc's order, each waited for until it really listens", async () => {
  const booted = await client.boot({ session, user: 'alice', processes: SESSION }, { wait: true });
  expect(booted.completion?.status).toBe('succeeded');
  expect(booted.completion!.processes.map((p) => p.nodeName)).toEqual([
    target.node,
    target.node,
    target.node,
  ]);
  // The completion comes once every pod exists; the timeline's watch may see the last a moment
  // later.
  for (const { name } of SESSION)
    await timeline.waitFor(`${name} created`, (m) => m.name === name && m.type === 'ADDED');
  // The connection server was Ready before the root controller's pod existed, the root
  // controller Ready before the application's pod existed.
  const lcsReady = timeline.readyAt('local-connection-server');
  expect(lcsReady).toBeGreaterThanOrEqual(0);
  expect(timeline.createdAt('root')).toBeGreaterThan(lcsReady);
  const rootReady = timeline.readyAt('root');
  expect(rootReady).toBeGreaterThan(timeline.createdAt('root'));
  expect(timeline.createdAt('app-1')).toBeGreaterThan(rootReady);
});

it("answers logs with the process's own last lines, to every client", async () => {
  // process.booted is the pod's creation (docs/design.md §11.10): the process starts after.
  await timeline.waitFor('app-1 Running', (m) => m.name === 'app-1' && m.phase === 'Running');
  await logLineOf(kubeconfig, { namespace: session, pod: 'app-1' }, (l) => l.includes('tick'));
  const start = 'daq_application: start argv=["daq_application","--name","app-1"';
  // The stand-in ticks every 2 s: 1,000 lines reach back further than this suite's time limits,
  // so its start line is among them however slowly the suites before this test ran.
  const TAIL = 1000;

  const [logs] = await client.logs({ session, names: ['^app-1$'] }, { tailLines: TAIL });
  expect(logs.lines.join('\n')).toContain(start);
  const [tail] = await client.logs({ session, names: ['^app-1$'] }, { tailLines: 2 });
  expect(tail.lines).toHaveLength(2);

  const cli = await kpm(
    'logs',
    '--session',
    session,
    '--name',
    '^app-1$',
    '--tail',
    String(TAIL),
    '--json',
  );
  expect(cli.code).toBe(0);
  expect(cli.stdout).toContain('daq_application: start argv=');

  const python = await runPython(await projectPython(), 'test/support/python/logs_of.py', [
    ...['--brokers', stackEnv().brokers.join(','), '--topic-prefix', h.prefix],
    ...['--session', session, '--name', '^app-1$', '--as', 'alice', '--tail', String(TAIL)],
  ]);
  expect(python.code).toBe(0);
  const answer = JSON.parse(python.stdout) as { logs: { lines: string[] }[] };
  expect(answer.logs[0].lines.join('\n')).toContain(start);

  // The dashboard's log button: a logs command through the state service, then its completion.
  const completions = client.events({ session, topics: ['completions'] });
  await completions.ready();
  const asked = await fetch(`${await h.stateUrl()}/v1/dashboard/logs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session, uuid: logs.uuid, tailLines: TAIL }),
  });
  expect(asked.status).toBe(202);
  const { commandId } = (await asked.json()) as { commandId: string };
  for await (const event of completions) {
    const data = event.data as { commandId?: string; logs?: { lines: string[] }[] };
    if (data.commandId !== commandId) continue;
    expect(data.logs![0].lines.join('\n')).toContain(start);
    break;
  }
  await completions.close();
});

it('shows each process Running on the real node with `kpm ps --live`', async () => {
  const run = await kpm('ps', '--session', session, '--live', '--json');
  expect(run.code).toBe(0);
  const rows = JSON.parse(run.stdout) as {
    description: { metadata: { name: string } };
    live?: { alive: boolean; phase: string };
  }[];
  expect(rows.map((row) => [row.description.metadata.name, row.live]).sort()).toEqual([
    ['app-1', { alive: true, phase: 'Running' }],
    ['local-connection-server', { alive: true, phase: 'Running' }],
    ['root', { alive: true, phase: 'Running' }],
  ]);
});

it('restarts a real process with the same uuid: a new pod, a new start', async () => {
  const [before] = await client.ps({ session, names: ['^app-1$'] });
  const from = timeline.moments.length;
  const restarted = await client.restart({ session, names: ['^app-1$'] }, { wait: true });
  expect(restarted.completion?.status).toBe('succeeded');
  const [after] = restarted.completion!.processes;
  expect(after.uuid).toBe(before.uuid);
  expect(after.podUid).not.toBe(before.podUid);
  const added = await timeline.waitFor(
    'app-1 again',
    (m) => m.name === 'app-1' && m.type === 'ADDED',
    from,
  );
  await timeline.waitFor(
    'app-1 Running again',
    (m) => m.name === 'app-1' && m.phase === 'Running',
    added,
  );
  await logLineOf(kubeconfig, { namespace: session, pod: 'app-1' }, (l) =>
    l.includes('start argv='),
  );
  const [logs] = await client.logs({ session, names: ['^app-1$'] }, { tailLines: 500 });
  expect(logs.lines.filter((line) => line.includes('start argv='))).toHaveLength(1);
});

it("terminates in drunc's shutdown order, as the processes really ended", async () => {
  const terminated = await client.terminate({ session, user: 'alice' }, { wait: true });
  expect(terminated.completion?.status).toBe('succeeded');
  const exits = Object.fromEntries(
    terminated.completion!.processes.map((p) => [p.description.metadata.name, p.returnCode]),
  );
  // The controllers' and the server's SIGTERM handlers exit 0; the application is stopped by
  // drunc's preStop `kill -QUIT 1` first, and its SIGQUIT handler exits 3.
  expect(exits).toEqual({ 'app-1': 3, root: 0, 'local-connection-server': 0 });
  const app = timeline.endedAt('app-1');
  const root = timeline.endedAt('root');
  const lcs = timeline.endedAt('local-connection-server');
  expect(app).toBeGreaterThanOrEqual(0);
  expect(root).toBeGreaterThan(app);
  expect(lcs).toBeGreaterThan(root);
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The `kpm` CLI as a user runs it, against this suite's topics. */
function kpm(...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot(), 'bin', 'kpm.js'), ...args], {
      env: {
        ...process.env,
        KPM_KAFKA_BROKERS: stackEnv().brokers.join(','),
        KPM_TOPIC_PREFIX: h.prefix,
        KPM_LABEL_DOMAIN: h.harness.domain,
        KPM_USER: 'alice', // the session's owner
        KUBECONFIG: stackEnv().kubeconfig,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
