/**
 * A drunc-shaped DAQ session on the real node, through the whole system (boot-worker, watcher,
 * state): the boot requests drunc's driver sends — the local connection server (gunicorn on
 * `${CONNECTION_PORT}`), another infrastructure application, the root controller listening on its
 * gRPC port, two segments with their controllers (one segment nested in another), applications of
 * the segments and of the root segment — each `source`s its environment script, runs kpm's DAQ
 * stand-in under drunc's executable names, and writes its output to a log FILE.
 *
 * Proven on real processes: drunc's boot order with real readiness (the connection server Ready
 * and answering HTTP before the other infrastructure application and the root controller exist;
 * the root controller Ready and accepting TCP on its port before anything else exists); every
 * process's output in its log FILE on the host; every process running as the booting user (uid
 * from `runAsUsers`); drunc's network (the NodePort pods in the pod network, the rest in the
 * node's, localhost mapped to the connection server, the root controller registering its pod's
 * address); a restart of two processes at once; and a terminate that stops them in drunc's
 * order — applications, segment controllers deepest first, the root controller, infrastructure —
 * checked by the watch's order and by the kubelet's exit times (each stage's processes take more
 * than a second to stop, so a later stage's exit time is a later second).
 */
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { eventually } from '@kpm/common';
import type { ProcessInstance, ProcessSpec } from '@kpm/contracts';
import { connectProcessManager, type ProcessManagerClient } from '@kpm/client';
import { KpmTrio } from '../support/kpm-trio';
import { PodTimeline } from '../support/pod-timeline';
import { realNode, realNodeBootEnv } from '../support/real-node';
import { stackEnv } from '../support/stack-env';
import { suitePorts } from '../support/suite-ports';

jest.setTimeout(300_000);

const target = realNode();
const USER = 'alice';
const UID = 4242;
/** Longer than a second: a stage's exits fall in a later second than the stage before. */
const STOP_DELAY = '1500ms';

let h: KpmTrio;
let client: ProcessManagerClient;
let base: string;
let work: string;

beforeAll(async () => {
  base = mkdtempSync('/tmp/kpm-drunc-real-');
  // The allowed prefix is searchable by the DAQ users, as a site's is (kpm's init container
  // walks it as the process's user to reach, or make, its directories).
  chmodSync(base, 0o755);
  work = join(base, 'np04');
  const home = join(base, 'home', USER);
  for (const dir of [work, home]) {
    mkdirSync(dir, { recursive: true });
    chownSync(dir, UID, UID);
  }
  writeFileSync(join(work, 'rte.sh'), 'export DAQ_RTE_SOURCED=1\n');
  h = await KpmTrio.start('drunc-real', {
    ...realNodeBootEnv(target),
    KPM_HOST_PATH_PREFIXES: base,
    KPM_HOME_PATH_BASE: join(base, 'home'),
    KPM_RUN_AS_USERS: `${USER}:${UID}:${UID}`,
    // No kube-proxy on the local stack: ClusterIPs and node ports do not route, pod IPs do.
    KPM_LOCALHOST_ALIAS: 'pod-ip',
    KPM_REACHABILITY_CHECK: 'pod-ip',
    KPM_KILL_TIMEOUT_SECONDS: '20',
  });
  client = connectProcessManager({
    brokers: stackEnv().brokers,
    topicPrefix: h.prefix,
    user: USER,
  });
}, 180_000);

afterAll(async () => {
  await client?.close();
  await h?.close();
  if (base) rmSync(base, { recursive: true, force: true });
}, 180_000);

/** The session drunc's driver would boot, in its order, as kpm process specs. */
function druncSession(session: string): ProcessSpec[] {
  // Node ports for the connection server and the root controller (in the pod network); the
  // others listen on the node's own ports (in its network).
  const own = suitePorts('drunc-real-node', 7);
  const [lcsPort, rootPort] = [own.node(0), own.node(1)];
  const ports = [0, 1, 2, 3, 4, 5, 6].map((i) => own.host(i));
  const process = (
    name: string,
    treeId: string,
    exec: string,
    args: string[],
    extra: Partial<ProcessSpec> = {},
  ): ProcessSpec => ({
    name,
    treeId,
    executableAndArguments: [
      { exec: 'source', args: [join(work, 'rte.sh')] },
      { exec, args },
    ],
    env: { DUNEDAQ_SESSION: session, DUNEDAQ_APPLICATION_NAME: name },
    executionDirectory: work,
    logFile: join(work, `log_${USER}_${session}_${name}.txt`),
    restriction: { allowedHosts: [target.node] },
    ...extra,
  });
  const drunc = (name: string, control: string) => [
    '-s',
    session,
    '-k',
    'np04-session',
    '-n',
    name,
    '-c',
    control,
    '-d',
    'oksconflibs:np04.data.xml',
  ];
  const controller = (name: string, treeId: string, port: number) =>
    process(name, treeId, 'drunc-controller', [
      ...drunc(name, `grpc://${target.node}:${port}`),
      '-l',
      'INFO',
      '--term-delay',
      STOP_DELAY,
    ]);
  const application = (name: string, treeId: string, port: number, extra = {}) =>
    process(
      name,
      treeId,
      'daq_application',
      [...drunc(name, `rest://${target.node}:${port}`), '--quit-delay', STOP_DELAY],
      extra,
    );
  return [
    process(
      'local-connection-server',
      '1',
      'gunicorn',
      [
        '-b',
        '0.0.0.0:${CONNECTION_PORT}',
        '--workers=1',
        'connection-service.connection-flask:app',
      ],
      { env: { CONNECTION_PORT: String(lcsPort) } },
    ),
    application('ers-gateway', '2', ports[0]),
    controller('root-controller', '0', rootPort),
    controller('ru-controller', '0.0', ports[1]),
    controller('ru-apa1-controller', '0.0.0', ports[2]),
    application('ru-01', '0.0.0', ports[3]),
    controller('df-controller', '0.1', ports[4]),
    application('df-01', '0.1.0', ports[5], {
      restriction: { allowedHosts: [target.node], dataMount: '.' },
    }),
    application('mlt', '0.0', ports[6]),
  ];
}

/** What this suite waits for in a log file: 60 s, read every 200 ms. */
const inLogFile = (what: string) => ({ what, timeoutMs: 60_000, everyMs: 200 });

const logOf = (spec: ProcessSpec) => {
  try {
    return readFileSync(spec.logFile!, 'utf8');
  } catch {
    return '';
  }
};

it('boots, logs, runs as the user, restarts and terminates as drunc does', async () => {
  const session = h.session('np04');
  const processes = druncSession(session);
  const names = processes.map((p) => p.name);
  const timeline = await new PodTimeline(h.harness.kubeconfig, session).start();
  const bootStarted = Date.now();
  const boot = await client.boot(
    { session, user: USER, processes },
    { wait: true, timeoutMs: 180_000 },
  );
  expect(boot.completion?.status).toBe('succeeded');
  const bootMs = Date.now() - bootStarted;
  // The completion comes once every pod exists; the timeline's watch may deliver the last
  // creations a moment later.
  for (const name of names)
    await timeline.waitFor(`${name} created`, (m) => m.name === name && m.type === 'ADDED');

  // drunc's order: the connection server Ready (and answering), the other infrastructure
  // application, then the root controller created and Ready (and accepting), then the rest.
  const created = (name: string) => timeline.createdAt(name);
  expect(created('local-connection-server')).toBe(0);
  expect(timeline.readyAt('local-connection-server')).toBeLessThan(created('ers-gateway'));
  expect(created('ers-gateway')).toBeLessThan(created('root-controller'));
  expect(timeline.readyAt('root-controller')).toBeGreaterThan(created('root-controller'));
  const first = ['local-connection-server', 'ers-gateway', 'root-controller'];
  for (const name of names.filter((n) => !first.includes(n)))
    expect(created(name)).toBeGreaterThan(timeline.readyAt('root-controller'));

  // Every process's output in its log file on the host, written by the booting user's uid, and
  // each pod running as that user.
  for (const spec of processes) {
    const log = await eventually(
      () => {
        const text = logOf(spec);
        return /start argv=/.test(text) && text;
      },
      inLogFile(`${spec.name}'s log`),
    );
    expect(log).toMatch(
      new RegExp(
        `^${spec.executableAndArguments[1].exec}: start argv=.* uid=${UID} gid=${UID}`,
        'm',
      ),
    );
  }
  for (const spec of processes) expect(statSync(spec.logFile!).isFile()).toBe(true);
  const pods = new Map((await h.harness.pods(session)).map((p) => [p.metadata!.name!, p]));
  const lcsIp = pods.get('local-connection-server')!.status!.podIP!;
  for (const [name, pod] of pods) {
    expect(pod.spec?.securityContext).toMatchObject({ runAsUser: UID, runAsGroup: UID });
    // drunc's network: the NodePort pods in the pod network, the rest in the node's, each
    // mapping localhost to the connection server.
    const nodePort = name === 'local-connection-server' || name === 'root-controller';
    expect(pod.spec?.hostNetwork === true).toBe(!nodePort);
    if (name !== 'local-connection-server')
      expect(pod.spec?.hostAliases).toEqual([{ ip: lcsIp, hostnames: ['localhost'] }]);
  }
  // The root controller listens on, and would register, its pod's address.
  const root = pods.get('root-controller')!;
  const rootSpec = processes.find((p) => p.name === 'root-controller')!;
  expect(logOf(rootSpec)).toContain(`"grpc://${root.status!.podIP}:`);

  // drunc's restart of several processes at once: each back with its uuid, a new pod, a new
  // start appended to its log file.
  const [ru01, mlt] = ['ru-01', 'mlt'].map((n) => processes.find((p) => p.name === n)!);
  const before = await client.ps({ session, names: ['^(ru-01|mlt)$'] });
  const restartStarted = Date.now();
  const restarted = await client.restart(
    { session, names: ['^(ru-01|mlt)$'] },
    { wait: true, timeoutMs: 120_000 },
  );
  expect(restarted.completion?.status).toBe('succeeded');
  const restartMs = Date.now() - restartStarted;
  const after = restarted.completion!.processes;
  expect(after.map((p) => p.uuid).sort()).toEqual(before.map((p) => p.uuid).sort());
  for (const p of after) {
    expect(p.podUid).not.toBe(before.find((b) => b.uuid === p.uuid)!.podUid);
  }
  for (const spec of [ru01, mlt]) {
    await eventually(
      () =>
        logOf(spec)
          .split('\n')
          .filter((l) => l.includes('start argv=')).length === 2,
      inLogFile(`${spec.name}'s second start in its log file`),
    );
  }

  const terminateStarted = Date.now();
  const terminate = await client.terminate(
    { session, user: USER, timeoutSeconds: 240 },
    { wait: true },
  );
  expect(terminate.completion?.status).toBe('succeeded');
  const terminateMs = Date.now() - terminateStarted;
  const exits = new Map(
    terminate.completion!.processes.map((p: ProcessInstance) => [
      p.description.metadata.name,
      Date.parse(p.terminatedAt!),
    ]),
  );
  timeline.stop();
  const stages = [
    ['ru-01', 'df-01', 'mlt'],
    ['ru-apa1-controller'],
    ['ru-controller', 'df-controller'],
    ['root-controller'],
    ['local-connection-server', 'ers-gateway'],
  ];
  for (let i = 1; i < stages.length; i++) {
    // Each stage's processes ended after every process of the stage before, as the API server
    // reported it; and the kubelet's exit times say the same to the second for those that take
    // longer than a second to stop (drunc's trap ends the connection server at once).
    const lastEnded = Math.max(...stages[i - 1].map((n) => timeline.endedAt(n)));
    const lastExit = Math.max(...stages[i - 1].map((n) => exits.get(n)!));
    for (const name of stages[i]) {
      expect(timeline.endedAt(name)).toBeGreaterThan(lastEnded);
      if (name !== 'local-connection-server') expect(exits.get(name)).toBeGreaterThan(lastExit);
    }
  }
  const exitSeconds = stages.map((stage) =>
    stage.map((n) => ((exits.get(n)! - terminateStarted) / 1000).toFixed(0)).join('/'),
  );
  console.log(
    `drunc session of ${names.length} on the real node: boot --wait ${(bootMs / 1000).toFixed(1)} s, ` +
      `restart of 2 --wait ${(restartMs / 1000).toFixed(1)} s, terminate --wait ` +
      `${(terminateMs / 1000).toFixed(1)} s; kubelet exit times after the terminate, by stage ` +
      `(s, ±1): ${exitSeconds.join(' → ')}`,
  );

  // Each process stopped on drunc's signal: applications on the preStop's SIGQUIT, the rest on
  // SIGTERM; all of them said so in their log files.
  for (const spec of processes) {
    const signal = spec.executableAndArguments[1].exec === 'daq_application' ? 'QUIT' : 'TERM';
    if (spec.name === 'local-connection-server') continue; // drunc's trap kills it at once
    expect(logOf(spec)).toMatch(new RegExp(`signal ${signal} received`));
  }
});
