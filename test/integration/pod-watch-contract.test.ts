/**
 * The API server keeps the pod watch's contract (libs/kube/src/__fixtures__/pod-watch-contract.ts)
 * through kpm's own clients (KubeCoreApi, KubeWatch): the same table the unit run holds FakePodApi
 * to. Its pods go in a namespace of this run's own, on kwok's nodes; the namespace goes at the end.
 *
 * A resourceVersion too old: "1", once etcd's history before now is compacted (as the API server
 * itself compacts every five minutes). The cases that need it (`forgets`) run against a second
 * kube-apiserver on the same etcd without a watch cache: the stack's own serves watches from its
 * cache's window, which on a stack minutes old reaches back to "1" whatever etcd forgot (a CI run
 * on a fresh stack waited for a 410 that never came).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Node } from '@kubernetes/client-node';
import { createKubeApis, withKubeRetry, type KubeApis } from '@kpm/kube';
import {
  POD_WATCH_CONTRACT,
  type PodApi,
  type PodWatchEnv,
} from '../../libs/kube/src/__fixtures__/pod-watch-contract';
import { ApiServerReplica } from '../support/apiserver-replica';
import { compactEtcd } from '../support/etcd-compaction';
import { stackEnv } from '../support/stack-env';

/** kwok's nodes (stack/kube/README.md). */
const SIMULATED = 'sim.kpm.daq/node';
const suffix = randomBytes(3).toString('hex');
const namespace = `pod-watch-contract-${suffix}`;
let apis: KubeApis;
let api: PodApi;
/** The same etcd through a kube-apiserver without a watch cache: watches feel its compaction. */
let withoutCache: PodApi;
let replica: ApiServerReplica | undefined;
let env: PodWatchEnv;

function usable(node: V1Node): boolean {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  const tainted = (node.spec?.taints ?? []).some((t) => t.effect !== 'PreferNoSchedule');
  return ready && !node.spec?.unschedulable && !tainted;
}

/** kpm's clients of the API server of this kubeconfig, as the table calls them. */
function podApi({ core, watch }: KubeApis): PodApi {
  return {
    listPodForAllNamespaces: (p) => core.listPodForAllNamespaces(p),
    // A namespace a moment old may refuse pods until its ServiceAccount is made (retried).
    createNamespacedPod: (p) =>
      withKubeRetry(() => core.createNamespacedPod(p), { deadlineMs: 30_000 }),
    patchNamespacedPod: (p, type) => core.patchNamespacedPod(p, type),
    deleteNamespacedPod: (p) => core.deleteNamespacedPod(p),
    watch: (path, query, onEvent, done) => watch.watch(path, query, onEvent, done),
  };
}

/** A kubeconfig like the stack's, but for the replica's port. */
function replicaKubeconfig(port: number): string {
  const file = join(mkdtempSync(join(tmpdir(), 'kpm-watch-contract-')), 'kubeconfig');
  const text = readFileSync(stackEnv().kubeconfig!, 'utf8');
  writeFileSync(
    file,
    text.replace(/server: https:\/\/127\.0\.0\.1:\d+/, `server: https://127.0.0.1:${port}`),
  );
  return file;
}

beforeAll(async () => {
  apis = createKubeApis(stackEnv().kubeconfig);
  api = podApi(apis);
  replica = await new ApiServerReplica(['--watch-cache=false']).start();
  withoutCache = podApi(createKubeApis(replicaKubeconfig(replica.port)));
  const { core } = apis;
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
    forgetHistory: async () => {
      await compactEtcd();
    },
  };
}, 180_000);

afterAll(async () => {
  await replica?.stop();
  await apis?.core.deleteNamespace({ name: namespace }).catch(() => undefined);
}, 60_000);

describe('the API server keeps the pod watch contract (kpm clients, kwok nodes)', () => {
  it.each(POD_WATCH_CONTRACT.map((c) => [c.name, c] as const))('%s', async (_name, contract) => {
    await contract.run(contract.forgets ? withoutCache : api, env);
  });
});
