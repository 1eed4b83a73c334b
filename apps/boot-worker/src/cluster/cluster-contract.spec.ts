/**
 * FakeCluster keeps the Cluster contract (__fixtures__/cluster-contract.ts): the table that
 * test/integration/cluster-contract.test.ts runs on KubeCluster against the API server.
 */
import { CLUSTER_CONTRACT, type ContractEnv } from '../__fixtures__/cluster-contract';
import { FakeCluster } from '../__fixtures__/fake-cluster';

/** A fresh fake per case, without kpm's watcher (nobody releases a finalizer but the case). */
function fakeEnv(): { cluster: FakeCluster; env: ContractEnv } {
  const cluster = new FakeCluster({
    domain: 'contract.test.daq',
    nodes: { 'node-1': 'ready', 'node-2': 'cordoned' },
    watcherDelayMs: undefined,
  });
  let count = 0;
  const env: ContractEnv = {
    unique: (label) => `${label}-${++count}`,
    behave: (pod, behaviour) => {
      cluster.scripts.set(
        pod.metadata!.name!,
        behaviour.runs === 'until-deleted'
          ? { readyAfterMs: 0, stopsAfterMs: behaviour.stopsAfterMs ?? 1_000 }
          : { readyAfterMs: 0, exitsAfterMs: behaviour.afterMs, exitCode: behaviour.exitCode },
      );
      return pod;
    },
    addForeignNamespace: (name) => Promise.resolve(void cluster.addNamespace(name, {})),
    addForeignPod: (pod) => Promise.resolve(void cluster.addPod(pod)),
    addForeignService: (service) => Promise.resolve(cluster.addService(service)),
    dropFinalizers: (namespace, name) => Promise.resolve(cluster.dropFinalizers(namespace, name)),
    readyNode: 'node-1',
    freeNodePort: () => Promise.resolve(30_080),
  };
  return { cluster, env };
}

describe('FakeCluster keeps the Cluster contract', () => {
  it.each(CLUSTER_CONTRACT.map((c) => [c.name, c] as const))('%s', async (_name, contract) => {
    const { cluster, env } = fakeEnv();
    await contract.run(cluster, env);
  });
});
