/**
 * What kpm's pod policy means inside a real process on the real node, through the whole system:
 * environment from Secrets resolved by the kubelet (the process proves it holds the values by
 * their SHA-256, never printing them), the run-as user, group and fsGroup as `id` sees them, a
 * host path within the allowed prefixes mounted and written as that user, and the session's Pod
 * Security level enforced by the API server's own admission.
 */
import { createHash } from 'node:crypto';
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { connectProcessManager, type ProcessManagerClient } from '@kpm/client';
import type { ProcessSpec } from '@kpm/contracts';
import { KpmTrio } from '../support/kpm-trio';
import { logLineOf } from '../support/pod-log';
import { PodTimeline } from '../support/pod-timeline';
import { realNode, realNodeBootEnv, standin } from '../support/real-node';
import { stackEnv } from '../support/stack-env';

jest.setTimeout(300_000);

const PASSWORD = 'pw-3c9d1e7a5b2f4068-real';
const TOKEN = 'tk-8a7b6c5d4e3f2019-real';
const UID = 1234;
const GID = 2345;

const target = realNode();
const hostDir = mkdtempSync(join(tmpdir(), 'kpm-real-host-'));
const logDir = join(hostDir, 'logs');
const kubeconfig = new KubeConfig();
let h: KpmTrio;
let client: ProcessManagerClient;

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
}, 240_000);

afterAll(async () => {
  await client?.close();
  await h?.close();
  rmSync(hostDir, { recursive: true, force: true });
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
