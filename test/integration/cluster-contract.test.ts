/**
 * KubeCluster keeps the Cluster contract (apps/boot-worker/src/__fixtures__/cluster-contract.ts)
 * against the local stack's API server, its pods on kwok's nodes: the same table the unit run
 * holds FakeCluster to. What the contract arranges behind the port (another's namespace, pod or
 * Service, a finalizer dropped) goes through client-node directly, not through kpm's gateways.
 * Everything is under a label domain and names of this run's own; the namespaces go at the end.
 */
import { randomBytes } from 'node:crypto';
import {
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Node,
} from '@kubernetes/client-node';
import { loadSettings } from '@kpm/config';
import { createKubeApis, KpmLabels, withKubeRetry } from '@kpm/kube';
import {
  CLUSTER_CONTRACT,
  type ContractEnv,
} from '../../apps/boot-worker/src/__fixtures__/cluster-contract';
import { KubeCluster } from '../../apps/boot-worker/src/cluster/kube-cluster';
import { realNode, type RealNodeTarget } from '../support/real-node';
import { stackEnv } from '../support/stack-env';

/** kwok's nodes (stack/kube/README.md); the real node for the cases about a container's life. */
const SIMULATED = 'sim.kpm.daq/node';
const NODE_PORTS = { first: 30_000, last: 32_767 };

const suffix = randomBytes(3).toString('hex');
const domain = `contract-${suffix}.test.daq`;
const labels = new KpmLabels(domain);
const foreignNamespaces: string[] = [];
let core: CoreV1Api;
let cluster: KubeCluster;
let env: ContractEnv;

function usable(node: V1Node): boolean {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  const tainted = (node.spec?.taints ?? []).some((t) => t.effect !== 'PreferNoSchedule');
  return ready && !node.spec?.unschedulable && !tainted;
}

async function freeNodePort(): Promise<number> {
  const services = await core.listServiceForAllNamespaces();
  const taken = new Set(
    services.items.flatMap((s) => (s.spec?.ports ?? []).map((p) => p.nodePort ?? 0)),
  );
  const span = NODE_PORTS.last - NODE_PORTS.first + 1;
  const start = Math.floor(Math.random() * span);
  for (let i = 0; i < span; i++) {
    const port = NODE_PORTS.first + ((start + i) % span);
    if (!taken.has(port)) return port;
  }
  throw new Error('no free node port');
}

/** Pods on kwok's nodes, annotated with the simulation contract (stack/kube/kwok.yaml). */
function kwokEnv(nodes: string[]): ContractEnv {
  let count = 0;
  const retry = { deadlineMs: 30_000 };
  return {
    unique: (label) => `${label}-${suffix}-${++count}`,
    behave: (pod, behaviour) => {
      const sim: Record<string, string> =
        behaviour.runs === 'until-deleted'
          ? { 'sim.kpm.daq/stop-ms': String(behaviour.stopsAfterMs ?? 1_000) }
          : {
              'sim.kpm.daq/exit-code': String(behaviour.exitCode),
              'sim.kpm.daq/run-ms': String(behaviour.afterMs),
            };
      pod.metadata = { ...pod.metadata, annotations: { ...pod.metadata?.annotations, ...sim } };
      pod.spec = { ...pod.spec!, nodeName: nodes[count++ % nodes.length] };
      return pod;
    },
    addForeignNamespace: async (name) => {
      foreignNamespaces.push(name);
      await core.createNamespace({ body: { metadata: { name } } });
    },
    // A namespace a moment old may refuse pods until its ServiceAccount is made (retried).
    addForeignPod: async (pod) =>
      void (await withKubeRetry(
        () => core.createNamespacedPod({ namespace: pod.metadata!.namespace!, body: pod }),
        retry,
      )),
    addForeignService: async (service) =>
      void (await core.createNamespacedService({
        namespace: service.metadata!.namespace!,
        body: service,
      })),
    dropFinalizers: async (namespace, name) =>
      void (await core.patchNamespacedPod(
        { namespace, name, body: { metadata: { finalizers: null } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      )),
    readyNode: nodes[0],
    freeNodePort,
  };
}

/**
 * Pods on the stack's real node, running its image: a shell that ends as the behaviour says — by
 * itself with the exit code, or on SIGTERM after `stopsAfterMs` (the trap runs once the
 * second's sleep in the loop returns).
 */
function realNodeEnv(base: ContractEnv, { node, image }: RealNodeTarget): ContractEnv {
  return {
    ...base,
    behave: (pod, behaviour) => {
      const script =
        behaviour.runs === 'until-deleted'
          ? `trap 'sleep ${(behaviour.stopsAfterMs ?? 1_000) / 1000}; exit 0' TERM; ` +
            'while :; do sleep 1; done'
          : `sleep ${behaviour.afterMs / 1000}; exit ${behaviour.exitCode}`;
      const [container] = pod.spec!.containers;
      pod.spec = {
        ...pod.spec!,
        nodeName: node,
        containers: [{ ...container, image, command: ['sh', '-c', script], args: [] }],
      };
      return pod;
    },
    readyNode: node,
  };
}

/** This run's namespaces go, their pods' finalizers dropped first so nothing holds them. */
async function cleanUp(): Promise<void> {
  const ours = await core.listNamespace({ labelSelector: labels.creatorSelector() });
  const names = [...ours.items.map((n) => n.metadata!.name!), ...foreignNamespaces];
  for (const namespace of names) {
    const pods = await core.listNamespacedPod({ namespace }).catch(() => undefined);
    for (const pod of pods?.items ?? [])
      if (pod.metadata?.finalizers?.length)
        await env.dropFinalizers(namespace, pod.metadata.name!).catch(() => undefined);
    await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  }
}

beforeAll(async () => {
  const { kubeconfig } = stackEnv();
  const config = new KubeConfig();
  if (kubeconfig) config.loadFromFile(kubeconfig);
  else config.loadFromDefault();
  core = config.makeApiClient(CoreV1Api);
  const settings = loadSettings('boot-worker', {
    KPM_INSTANCE: 'cluster-contract',
    KPM_LABEL_DOMAIN: domain,
    KUBECONFIG: kubeconfig,
  });
  cluster = new KubeCluster(createKubeApis(kubeconfig), settings);
  const nodes = await core.listNode({ labelSelector: `${SIMULATED}=true` });
  const ready = nodes.items.filter(usable).map((n) => n.metadata!.name!);
  if (ready.length === 0) throw new Error('no Ready, schedulable kwok node in the stack');
  env = kwokEnv(ready.sort());
});

afterAll(() => cleanUp(), 60_000);

describe('KubeCluster keeps the Cluster contract (the API server, kwok nodes)', () => {
  it.each(CLUSTER_CONTRACT.map((c) => [c.name, c] as const))('%s', async (_name, contract) => {
    await contract.run(cluster, env);
  });
});

describe("KubeCluster keeps the Cluster contract on the real node (a container's life)", () => {
  const cases = CLUSTER_CONTRACT.filter((c) => c.realNode);

  it("names the cases about a container's life to run there", () => {
    expect(cases.length).toBeGreaterThanOrEqual(3);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, contract) => {
    await contract.run(cluster, realNodeEnv(env, realNode()));
  });
});
