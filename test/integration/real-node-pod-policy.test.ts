/**
 * What kpm's pod policy means inside a real process on the real node, through the whole system:
 * environment from Secrets resolved by the kubelet (the process proves it holds the values by
 * their SHA-256, never printing them), the run-as user, group and fsGroup as `id` sees them, a
 * host path within the allowed prefixes mounted and written as that user, never root by default
 * (runAsNonRoot, the stack's default uid for an unmapped user, directories made owned by the
 * process), no symlink planted under a prefix read or written through (the kubelet's subPath
 * check, the process ending with its message and the path), and the session's Pod Security
 * level enforced by the API server's own admission.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { connectProcessManager, type ProcessManagerClient } from '@kpm/client';
import { topicName, type ProcessSpec } from '@kpm/contracts';
import { LOCAL_SERVICE_SETTINGS } from '@kpm/stack';
import { KpmTrio } from '../support/kpm-trio';
import { logLineOf } from '../support/pod-log';
import { PodTimeline } from '../support/pod-timeline';
import { realNode, realNodeBootEnv, standin } from '../support/real-node';
import { stackEnv } from '../support/stack-env';
import { terminationOf } from '../support/terminations';
import { TopicProbe } from '../support/topic-probe';

jest.setTimeout(300_000);

const PASSWORD = 'pw-3c9d1e7a5b2f4068-real';
const TOKEN = 'tk-8a7b6c5d4e3f2019-real';
const UID = 1234;
const GID = 2345;

/** The stack's uid and gid for a user no runAsUsers entry maps (alice, here). */
const [DEFAULT_UID, DEFAULT_GID] = LOCAL_SERVICE_SETTINGS.KPM_DEFAULT_RUN_AS.split(':').map(Number);

const target = realNode();
/** The allowed prefix: root's, searchable by all, as a site's /log or /data. */
const hostDir = mkdtempSync(join(tmpdir(), 'kpm-real-host-'));
chmodSync(hostDir, 0o755);
const logDir = join(hostDir, 'logs');
/** A root-only directory outside every prefix, holding a root-only file. */
const secretDir = mkdtempSync(join(tmpdir(), 'kpm-real-secret-'));
const SECRET = 'root-only-5e1f0c2d\n';
const kubeconfig = new KubeConfig();
let h: KpmTrio;
let client: ProcessManagerClient;
let terminations: TopicProbe;

const onNode = (name: string, extra: Partial<ProcessSpec> = {}): ProcessSpec => ({
  name,
  executableAndArguments: standin('--port', '7070'),
  restriction: { allowedHosts: [target.node] },
  ...extra,
});

beforeAll(async () => {
  // The site's log directory exists and belongs to the user the processes run as.
  mkdirSync(logDir, { mode: 0o755 });
  chownSync(logDir, UID, GID);
  h = await KpmTrio.start('real-policy', {
    ...realNodeBootEnv(target),
    KPM_HOST_PATH_PREFIXES: hostDir,
    KPM_RUN_AS_UID_RANGE: '1000-60000',
    KPM_RUN_AS_GID_RANGE: '1000-60000',
    // kpm's Pod Security levels, in the pod network (drunc's network puts every session at privileged).
    KPM_NETWORK: 'pod',
  });
  client = connectProcessManager({
    brokers: stackEnv().brokers,
    topicPrefix: h.prefix,
    user: 'alice',
  });
  kubeconfig.loadFromFile(stackEnv().kubeconfig!);
  terminations = await new TopicProbe(stackEnv().brokers, [
    topicName('terminations', h.prefix),
  ]).start();
}, 240_000);

afterAll(async () => {
  await terminations?.stop();
  await client?.close();
  await h?.close();
  rmSync(hostDir, { recursive: true, force: true });
  rmSync(secretDir, { recursive: true, force: true });
}, 180_000);

/** Boots into `session` and waits until the process really runs. */
async function bootRunning(session: string, spec: ProcessSpec): Promise<void> {
  const timeline = await new PodTimeline(kubeconfig, session).start();
  try {
    const booted = await client.boot({ session, user: 'alice', processes: [spec] }, { wait: true });
    expect(booted.completion?.status).toBe('succeeded');
    await timeline.waitFor(`${spec.name} Running`, (m) => m.name === spec.name && m.ready);
  } finally {
    timeline.stop();
  }
}

async function logLines(session: string, name: string): Promise<string[]> {
  const [logs] = await client.logs({ session, names: [`^${name}$`] }, { tailLines: 100 });
  return logs.lines;
}

const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

it('resolves secretEnv and envFrom inside the process; the values reach no log line', async () => {
  const session = h.session('secrets');
  await bootRunning(session, onNode('first'));
  const core = h.harness.core;
  for (const [name, data] of [
    ['daq-db', { password: PASSWORD }],
    ['daq-credentials', { DAQ_TOKEN: TOKEN }],
  ] as const) {
    await core.createNamespacedSecret({
      namespace: session,
      body: { metadata: { name }, stringData: data },
    });
  }
  await bootRunning(
    session,
    onNode('reader', {
      executableAndArguments: standin(
        '--port',
        '7070',
        '--print-env',
        'DB_PASSWORD',
        '--print-env',
        'DAQ_TOKEN',
      ),
      secretEnv: [{ name: 'DB_PASSWORD', secretKeyRef: { name: 'daq-db', key: 'password' } }],
      envFrom: [{ secretRef: { name: 'daq-credentials' } }],
    }),
  );
  // The stand-in reports its environment as it starts; then kpm's logs are asked for it.
  await logLineOf(kubeconfig, { namespace: session, pod: 'reader' }, (l) =>
    l.includes('DAQ_TOKEN'),
  );
  const lines = (await logLines(session, 'reader')).join('\n');
  expect(lines).toContain(`env DB_PASSWORD set=true sha256=${sha256(PASSWORD)}`);
  expect(lines).toContain(`env DAQ_TOKEN set=true sha256=${sha256(TOKEN)}`);
  expect(lines).not.toContain(PASSWORD);
  expect(lines).not.toContain(TOKEN);
});

it('runs as the uid and gid asked, with the fsGroup, and writes the host path as that user', async () => {
  const session = h.session('runas');
  const written = join(logDir, 'written.txt');
  await bootRunning(
    session,
    onNode('writer', {
      uid: UID,
      gid: GID,
      logsPath: logDir,
      executableAndArguments: [
        { exec: 'id', args: [] },
        { exec: 'daq-standin', args: ['--port', '7070', '--write-file', written] },
      ],
    }),
  );
  await logLineOf(kubeconfig, { namespace: session, pod: 'writer' }, (l) =>
    l.includes('wrote a line'),
  );
  const lines = await logLines(session, 'writer');
  expect(lines).toContain(`uid=${UID} gid=${GID} groups=${GID}`);
  expect(readFileSync(written, 'utf8')).toMatch(
    new RegExp(`^daq-standin .* uid=${UID} gid=${GID}\\n$`),
  );
  const stat = statSync(written);
  expect([stat.uid, stat.gid]).toEqual([UID, GID]);
  // A host path makes its session privileged (docs/design.md §6.3).
  const namespace = await h.harness.core.readNamespace({ name: session });
  expect(namespace.metadata?.labels?.['pod-security.kubernetes.io/enforce']).toBe('privileged');
});

it("enforces a baseline session's Pod Security in the API server's own admission", async () => {
  const session = h.session('baseline');
  await bootRunning(session, onNode('plain'));
  const namespace = await h.harness.core.readNamespace({ name: session });
  expect(namespace.metadata?.labels?.['pod-security.kubernetes.io/enforce']).toBe('baseline');
  const privileged: V1Pod = {
    metadata: { name: 'sneaky', namespace: session },
    spec: {
      nodeName: target.node,
      containers: [
        {
          name: 'sneaky',
          image: target.image,
          securityContext: { privileged: true },
        },
      ],
    },
  };
  const refusal = await h.harness.core
    .createNamespacedPod({ namespace: session, body: privileged })
    .then(
      () => undefined,
      (error: { code?: number; body?: string }) => error,
    );
  expect(refusal?.code).toBe(403);
  expect((JSON.parse(refusal!.body!) as { message: string }).message).toContain(
    'violates PodSecurity "baseline:latest": privileged (container "sneaky" must not set securityContext.privileged=true)',
  );
});

/** The uid of the pod of each named process of `session`. */
async function podUids(session: string): Promise<Map<string, string>> {
  const pods = await h.harness.pods(session);
  return new Map(pods.map((p) => [p.metadata!.name!, p.metadata!.uid!]));
}

it('runs an unmapped user as the default non-root uid, runAsNonRoot, and makes its log directory owned by it', async () => {
  const session = h.session('owner');
  // A site's experiment directory the DAQ users may write in; kpm makes the rest.
  const site = join(hostDir, 'site');
  mkdirSync(site, { mode: 0o755 });
  chownSync(site, DEFAULT_UID, DEFAULT_GID);
  const logs = join(site, 'run-1', 'logs');
  const written = join(logs, 'written.txt');
  await bootRunning(
    session,
    onNode('maker', {
      logsPath: logs,
      executableAndArguments: [
        { exec: 'id', args: [] },
        { exec: 'daq-standin', args: ['--port', '7070', '--write-file', written] },
      ],
    }),
  );
  await logLineOf(kubeconfig, { namespace: session, pod: 'maker' }, (l) =>
    l.includes('wrote a line'),
  );
  expect(await logLines(session, 'maker')).toContain(
    `uid=${DEFAULT_UID} gid=${DEFAULT_GID} groups=${DEFAULT_GID}`,
  );
  // Made by kpm's init container as the process's user, not by the kubelet as root.
  for (const made of [join(site, 'run-1'), logs, written]) {
    const stat = statSync(made);
    expect([made, stat.uid, stat.gid]).toEqual([made, DEFAULT_UID, DEFAULT_GID]);
  }
  const [pod] = await h.harness.pods(session);
  expect(pod.spec!.securityContext).toMatchObject({
    runAsNonRoot: true,
    runAsUser: DEFAULT_UID,
    runAsGroup: DEFAULT_GID,
  });
  expect(pod.spec!.initContainers!.map((c) => c.name)).toEqual(['kpm-host-paths']);
  expect(pod.status!.initContainerStatuses![0].state?.terminated?.exitCode).toBe(0);
});

it('reads and writes nothing through a symlink planted under an allowed prefix: the kubelet refuses the mount, the process ends naming the path, the session runs on', async () => {
  const session = h.session('symlink');
  writeFileSync(join(secretDir, 'secret.txt'), SECRET, { mode: 0o600 });
  chmodSync(secretDir, 0o700);
  // What anyone able to write under the prefix can plant: a link out of it.
  const planted = join(hostDir, 'planted');
  mkdirSync(planted, { mode: 0o777 });
  const link = join(planted, 'link');
  symlinkSync(secretDir, link);
  const before = readdirSync(secretDir).sort();
  const started = Date.now();
  const timeline = await new PodTimeline(kubeconfig, session).start();
  try {
    const booted = await client.boot(
      {
        session,
        user: 'alice',
        processes: [
          onNode('bystander'),
          // drunc's data mount through the link: read the secret, write beside it.
          onNode('reader', {
            restriction: { allowedHosts: [target.node], dataMount: link },
            executableAndArguments: [
              { exec: 'cat', args: [join(link, 'secret.txt')] },
              { exec: 'touch', args: [join(link, 'touched')] },
              { exec: 'daq-standin', args: ['--port', '7071'] },
            ],
          }),
          // A log directory to be made below the link: made nowhere.
          onNode('logger', {
            logsPath: join(link, 'logs'),
            executableAndArguments: [
              {
                exec: 'daq-standin',
                args: ['--port', '7072', '--write-file', join(link, 'logs', 'x')],
              },
            ],
          }),
        ],
      },
      { wait: true },
    );
    expect(booted.completion?.status).toBe('succeeded');
    const uids = await podUids(session);
    const reader = await terminationOf(terminations, uids.get('reader')!, 60_000);
    const logger = await terminationOf(terminations, uids.get('logger')!, 60_000);
    const endedMs = Date.now() - started;
    const kubelet = (mount: string, what: string) =>
      `failed to ${what} for volumeMount "${mount}" of container`;
    expect(reader.data).toMatchObject({
      exitCode: -1,
      reason: 'CreateContainerConfigError',
      failure: { containerName: 'reader', containerReason: 'CreateContainerConfigError' },
    });
    expect(reader.data.failure!.containerMessage).toContain(kubelet('kpm-data', 'prepare subPath'));
    expect(reader.data.failure!.containerMessage).toContain(
      `host path ${link} (subPath planted/link of the hostPath volume ${hostDir})`,
    );
    expect(logger.data).toMatchObject({ exitCode: -1, reason: 'CreateContainerConfigError' });
    expect(logger.data.failure!.containerMessage).toContain(
      kubelet('kpm-logs', 'create subPath directory'),
    );
    expect(logger.data.failure!.containerMessage).toContain(`host path ${join(link, 'logs')}`);
    // Within the boot's normal deadlines: the kubelet's first verdict, not a timeout.
    expect(endedMs).toBeLessThan(60_000);
    // Nothing was read: the process never started, so it printed nothing; nothing was written.
    expect(await logLines(session, 'reader')).not.toContain(SECRET.trim());
    expect(readdirSync(secretDir).sort()).toEqual(before);
    expect(readFileSync(join(secretDir, 'secret.txt'), 'utf8')).toBe(SECRET);
    // The rest of the session runs on.
    await timeline.waitFor('bystander Running', (m) => m.name === 'bystander' && m.ready);
    const bystander = (await h.harness.pods(session)).find(
      (p) => p.metadata!.name === 'bystander',
    )!;
    expect(bystander.status!.phase).toBe('Running');
    expect(bystander.metadata!.deletionTimestamp).toBeUndefined();
    for (const pod of await h.harness.pods(session)) {
      expect([pod.metadata!.name, pod.spec!.securityContext?.runAsNonRoot]).toEqual([
        pod.metadata!.name,
        true,
      ]);
    }
    console.log(
      `symlink escape: both processes ended ${endedMs} ms after the boot was sent; ` +
        `reader: ${reader.data.failure!.containerMessage}; logger: ${logger.data.failure!.containerMessage}`,
    );
  } finally {
    timeline.stop();
  }
});
