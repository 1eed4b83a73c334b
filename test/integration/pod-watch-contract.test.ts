/**
 * The API server keeps the pod watch's contract (libs/kube/src/__fixtures__/pod-watch-contract.ts)
 * through kpm's own clients (KubeCoreApi, KubeWatch): the same table the unit run holds FakePodApi
 * to. Its pods go in a namespace of this run's own, on kwok's nodes; the namespace goes at the end.
 *
 * A resourceVersion too old: "1". The watch cache serves watches only from within its window of
 * recent changes, which never reaches back to 1 once the stack has bootstrapped (the server
 * answered "too old resource version: 1 (45573)" at a list resourceVersion of 47364); etcd's
 * compaction cannot be driven from a test.
 */
import { randomBytes } from 'node:crypto';
import type { V1Node } from '@kubernetes/client-node';
import { createKubeApis, withKubeRetry, type KubeApis } from '@kpm/kube';
import {
  POD_WATCH_CONTRACT,
  type PodApi,
  type PodWatchEnv,
} from '../../libs/kube/src/__fixtures__/pod-watch-contract';
import { stackEnv } from '../support/stack-env';

/** kwok's nodes (stack/kube/README.md). */
const SIMULATED = 'sim.kpm.daq/node';
const suffix = randomBytes(3).toString('hex');
const namespace = `pod-watch-contract-${suffix}`;
let apis: KubeApis;
let api: PodApi;
let env: PodWatchEnv;

function usable(node: V1Node): boolean {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  const tainted = (node.spec?.taints ?? []).some((t) => t.effect !== 'PreferNoSchedule');
  return ready && !node.spec?.unschedulable && !tainted;
}

beforeAll(async () => {
  apis = createKubeApis(stackEnv().kubeconfig);
  const { core, watch } = apis;
  api = {
    listPodForAllNamespaces: (p) => core.listPodForAllNamespaces(p),
    // A namespace a moment old may refuse pods until its ServiceAccount is made (retried).
    createNamespacedPod: (p) =>
      withKubeRetry(() => core.createNamespacedPod(p), { deadlineMs: 30_000 }),
    patchNamespacedPod: (p, type) => core.patchNamespacedPod(p, type),
    deleteNamespacedPod: (p) => core.deleteNamespacedPod(p),
    watch: (path, query, onEvent, done) => watch.watch(path, query, onEvent, done),
  };
  const nodes = await core.listNode({ labelSelector: `${SIMULATED}=true` });
  const ready = nodes.items
    .filter(usable)
    .map((n) => n.metadata!.name!)
    .sort();
  if (ready.length === 0) throw new Error('no Ready, schedulable kwok node in the stack');
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  let count = 0;
  env = {
    unique: (label) => `${label}-${suffix}-${++count}`,
    namespace,
    place: (pod) => ({ ...pod, spec: { ...pod.spec!, nodeName: ready[count % ready.length] } }),
    tooOldResourceVersion: '1',
  };
});

afterAll(async () => {
  await apis?.core.deleteNamespace({ name: namespace }).catch(() => undefined);
}, 60_000);

describe('the API server keeps the pod watch contract (kpm clients, kwok nodes)', () => {
  it.each(POD_WATCH_CONTRACT.map((c) => [c.name, c] as const))('%s', async (_name, contract) => {
    await contract.run(api, env);
  });
});
