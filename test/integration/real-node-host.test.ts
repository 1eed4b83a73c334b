/**
 * The real node leaves its host as it found it (stack/node/README.md): taken down, the host is
 * snapshotted; brought up and running a real pod (projected token, memory-backed emptyDir,
 * host path), the host's kernel settings and netfilter are unchanged; taken down again, the
 * mounts, cgroups, links and runtime processes are those of the first snapshot. The node is
 * brought up again at the end, as the suites after this one expect it.
 *
 * It takes the node down: it runs alone (never beside another suite using the node).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { KubeStack, RealNode } from '@kpm/stack';
import { snapshotHost, type HostSnapshot } from '../support/host-snapshot';
import { PodTimeline } from '../support/pod-timeline';
import { realNode } from '../support/real-node';
import { stackEnv } from '../support/stack-env';

jest.setTimeout(300_000);

const target = realNode();
const kube = new KubeStack({ progress: () => undefined });
const node = new RealNode({ endpoint: () => kube.endpoint(), progress: () => undefined });
const kubeconfig = new KubeConfig();
const namespace = `host-${Date.now().toString(36)}`;
const hostDir = mkdtempSync(join(tmpdir(), 'kpm-host-'));
let before: HostSnapshot;
let core: CoreV1Api;

beforeAll(async () => {
  kubeconfig.loadFromFile(stackEnv().kubeconfig!);
  core = kubeconfig.makeApiClient(CoreV1Api);
  await node.down();
  before = snapshotHost();
  await node.up();
}, 240_000);

afterAll(async () => {
  await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  rmSync(hostDir, { recursive: true, force: true });
  await node.up(); // whatever happened above, the suites after this one find the node
}, 240_000);

const pod: V1Pod = {
  metadata: { name: 'volumes' },
  spec: {
    nodeName: target.node,
    restartPolicy: 'Never',
    terminationGracePeriodSeconds: 2,
    containers: [
      {
        name: 'volumes',
        image: target.image,
        command: ['daq-standin', '--write-file', '/host/written.txt', '--port', '7070'],
        volumeMounts: [
          { name: 'memory', mountPath: '/memory' },
          { name: 'host', mountPath: '/host' },
        ],
      },
    ],
    volumes: [
      { name: 'memory', emptyDir: { medium: 'Memory' } },
      { name: 'host', hostPath: { path: hostDir, type: 'Directory' } },
    ],
  },
};

it('changes no kernel setting and no netfilter table while pods run on it', async () => {
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  const timeline = await new PodTimeline(kubeconfig, namespace).start();
  try {
    await core.createNamespacedPod({ namespace, body: pod });
    await timeline.waitFor('the pod Ready', (m) => m.name === 'volumes' && m.ready);
  } finally {
    timeline.stop();
  }
  const running = snapshotHost();
  expect(changed(before.sysctls, running.sysctls)).toEqual([]);
  expect(running.netfilter).toEqual(before.netfilter);
  // While up it has its own runtime, cgroup parent and bridge: the check below is not vacuous.
  expect(running.runtimeProcesses.some((p) => p.startsWith('kubelet'))).toBe(true);
  expect(running.links).toContain('kpm0');
  expect(running.cgroups.some((c) => c.endsWith('/kpm-node'))).toBe(true);
});

it('leaves no process, mount, cgroup, link or setting behind once down', async () => {
  await node.down();
  const after = snapshotHost();
  expect(after.runtimeProcesses).toEqual(before.runtimeProcesses);
  expect(after.mounts).toEqual(before.mounts);
  expect(after.cgroups).toEqual(before.cgroups);
  expect(after.links).toEqual(before.links);
  expect(after.netfilter).toEqual(before.netfilter);
  expect(changed(before.sysctls, after.sysctls)).toEqual([]);
  expect(Object.keys(after.sysctls).filter((key) => !(key in before.sysctls))).toEqual([]);
});

/** The settings of `before` whose value differs in `after` (or are gone), with both values. */
function changed(
  before: Record<string, string>,
  after: Record<string, string>,
): { key: string; before: string; after?: string }[] {
  return Object.entries(before)
    .filter(([key, value]) => after[key] !== value)
    .map(([key, value]) => ({ key, before: value.trim(), after: after[key]?.trim() }));
}
