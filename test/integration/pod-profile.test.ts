/**
 * What the operator's settings put on a process's pod, read back from the real API server:
 * drunc's readout profile (a process whose name holds `readoutAppSelector` gets Guaranteed cpu
 * and memory, hugepages and the node's network; any other process does not), and the uid and gid
 * a process runs as (within the configured ranges, else refused naming the field and the range),
 * and the controllers' gRPC health readiness probe on the port of their command line.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandType, ProcessEventType } from '@kpm/contracts';
import { BootWorkerHarness } from '../support/boot-worker-harness';
import { daqApplication } from '../support/daq-application';
import { suitePorts } from '../support/suite-ports';

// drunc exposes the root controller on its own port as the same node port.
const ROOT_PORT = suitePorts('pod-profile', 1).node(0);

jest.setTimeout(180_000);

const PROFILE = [
  'podManagement:',
  '  readoutProfile: {cpu: "2", memory: 4Gi, hugepages: 1Gi, hostNetwork: true}',
  '',
].join('\n');

let h: BootWorkerHarness;

beforeAll(async () => {
  const config = join(mkdtempSync(join(tmpdir(), 'kpm-pod-profile-')), 'kpm.yaml');
  writeFileSync(config, PROFILE);
  h = await BootWorkerHarness.start('podprofile', {
    KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
    KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0',
    KPM_CONFIG: config,
    KPM_RUN_AS_UID_RANGE: '1000-60000',
    KPM_RUN_AS_GID_RANGE: '1000-60000',
    KPM_CONTROLLER_READINESS_PROBE: 'grpc',
    // kpm's readout profile and Pod Security levels, in the pod network (drunc's puts every pod
    // but the NodePort ones in the node's, and every session at the privileged level).
    KPM_NETWORK: 'pod',
  });
}, 120_000);

afterAll(() => h?.close(), 120_000);

it('gives a runp process the readout profile, and another process none', async () => {
  const session = h.session('readout');
  await h.send('boot-readout-1', CommandType.boot, {
    session,
    user: 'alice',
    processes: [daqApplication('runp-apa1', '1.1.1'), daqApplication('ru-apa1', '1.1.2')],
  });
  await h.factCount(ProcessEventType.processBooted, 'boot-readout-1', 2);
  const runp = await h.core.readNamespacedPod({ namespace: session, name: 'runp-apa1' });
  const guaranteed = { cpu: '2', memory: '4Gi', 'hugepages-2Mi': '1Gi' };
  expect(runp.spec!.containers[0].resources).toEqual({
    requests: guaranteed,
    limits: guaranteed,
  });
  expect(runp.status?.qosClass).toBe('Guaranteed');
  expect(runp.spec).toMatchObject({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' });
  expect(runp.spec!.containers[0].volumeMounts).toContainEqual(
    expect.objectContaining({ name: 'kpm-hugepages', mountPath: '/dev/hugepages' }),
  );

  const ru = await h.core.readNamespacedPod({ namespace: session, name: 'ru-apa1' });
  expect(ru.spec!.containers[0].resources ?? {}).toEqual({});
  expect(ru.status?.qosClass).toBe('BestEffort');
  expect(ru.spec!.hostNetwork).toBeFalsy();

  // The node's network is what Pod Security baseline forbids: the session allows it.
  const namespace = await h.core.readNamespace({ name: session });
  expect(namespace.metadata!.labels!['pod-security.kubernetes.io/enforce']).toBe('privileged');
});

it('refuses a runp process asking its own cpu, naming the field; the next boot goes through', async () => {
  const session = h.session('readout-own');
  await h.send('boot-readout-2', CommandType.boot, {
    session,
    user: 'alice',
    processes: [{ ...daqApplication('runp-apa2', '1.1.1'), resources: { limits: { cpu: '1' } } }],
  });
  const rejected = await h.fact(ProcessEventType.commandRejected, 'boot-readout-2');
  expect(rejected.data).toMatchObject({
    errors: [
      expect.objectContaining({
        path: 'processes[0].resources.limits',
        message: expect.stringMatching(
          /^cpu of a readout process .* podManagement\.readoutProfile/,
        ),
      }),
    ],
  });
  await h.send('boot-readout-3', CommandType.boot, {
    session,
    user: 'alice',
    processes: [daqApplication('runp-apa2', '1.1.1')],
  });
  await h.factCount(ProcessEventType.processBooted, 'boot-readout-3', 1);
});

it('runs a process as the uid and gid it asks within the range, and refuses one outside', async () => {
  const session = h.session('runas');
  await h.send('boot-runas-1', CommandType.boot, {
    session,
    user: 'alice',
    processes: [{ ...daqApplication('ru-alice', '1.1.1'), uid: 1000, gid: 1000 }],
  });
  await h.factCount(ProcessEventType.processBooted, 'boot-runas-1', 1);
  const pod = await h.core.readNamespacedPod({ namespace: session, name: 'ru-alice' });
  expect(pod.spec!.securityContext).toMatchObject({
    runAsUser: 1000,
    runAsGroup: 1000,
    fsGroup: 1000,
  });

  await h.send('boot-runas-2', CommandType.boot, {
    session,
    user: 'alice',
    processes: [{ ...daqApplication('ru-root', '1.1.2'), uid: 0 }],
  });
  const rejected = await h.fact(ProcessEventType.commandRejected, 'boot-runas-2');
  expect(rejected.data).toMatchObject({
    errors: [
      {
        path: 'processes[0].uid',
        message: '0 is outside the allowed range 1000-60000 (podManagement.runAsUidRange)',
      },
    ],
  });
  expect((await h.pods(session)).map((p) => p.metadata!.name)).toEqual(['ru-alice']);
});

it("probes a controller by gRPC health on its command line's port; an application not", async () => {
  const session = h.session('probes');
  await h.send('boot-probes-1', CommandType.boot, {
    session,
    user: 'alice',
    processes: [
      {
        name: 'root',
        treeId: '0',
        executableAndArguments: [
          { exec: 'drunc-controller', args: ['-c', `grpc://localhost:${ROOT_PORT}`] },
        ],
      },
      daqApplication('ru-probe', '0.1.1'),
    ],
  });
  await h.factCount(ProcessEventType.processBooted, 'boot-probes-1', 2);
  const root = await h.core.readNamespacedPod({ namespace: session, name: 'root' });
  expect(root.spec!.containers[0].readinessProbe).toMatchObject({
    grpc: { port: ROOT_PORT },
    periodSeconds: 1,
  });
  const ru = await h.core.readNamespacedPod({ namespace: session, name: 'ru-probe' });
  expect(ru.spec!.containers[0].readinessProbe).toBeUndefined();
});
