/**
 * Simulated nodes for DUNE-shaped sessions: kwok manages every node carrying the stack's
 * simulated-node label, so a bench can lay a session over as many hosts as DUNE's module does
 * and remove them afterwards.
 */
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { eventually } from '@kpm/common';
import { simulatedNode } from '@kpm/stack/kube/kwok';
import { stackEnv } from '../../test/support/stack-env';

const BENCH_NODE_LABEL = 'bench.kpm.daq/dune-profile';

export class DuneNodes {
  private constructor(
    private readonly api: CoreV1Api,
    readonly names: readonly string[],
  ) {}

  /** Registers `count` nodes `dune-001`… and waits until kwok has made every one Ready. */
  static async create(count: number): Promise<DuneNodes> {
    const config = new KubeConfig();
    config.loadFromFile(stackEnv().kubeconfig!);
    const api = config.makeApiClient(CoreV1Api);
    const names = Array.from({ length: count }, (_, i) => `dune-${String(i + 1).padStart(3, '0')}`);
    await Promise.all(
      names.map((name) =>
        api
          .createNode({ body: simulatedNode(name, { [BENCH_NODE_LABEL]: 'true' }) })
          .catch((error: { code?: number }) => {
            if (error.code !== 409) throw error;
          }),
      ),
    );
    await eventually(
      async () => {
        const list = await api.listNode({ labelSelector: `${BENCH_NODE_LABEL}=true` });
        const ready = list.items.filter((n) =>
          n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        return ready.length >= count;
      },
      { what: `${count} simulated DUNE nodes Ready`, timeoutMs: 120_000, everyMs: 250 },
    );
    return new DuneNodes(api, names);
  }

  async delete(): Promise<void> {
    await this.api.deleteCollectionNode({ labelSelector: `${BENCH_NODE_LABEL}=true` });
  }
}
