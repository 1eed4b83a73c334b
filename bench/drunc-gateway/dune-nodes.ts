/**
 * Simulated nodes for DUNE-shaped sessions: kwok manages every node carrying the stack's
 * simulated-node label, so a bench can lay a session over as many hosts as DUNE's module does
 * and remove them afterwards.
 */
import { CoreV1Api, KubeConfig, type V1Node } from '@kubernetes/client-node';
import { eventually } from '@kpm/common';
import { SIM_NODE_LABEL } from '@kpm/stack/kube/kwok';
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
        api.createNode({ body: node(name) }).catch((error: { code?: number }) => {
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

function node(name: string): V1Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        [SIM_NODE_LABEL]: 'true',
        [BENCH_NODE_LABEL]: 'true',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        type: 'kwok',
      },
      annotations: { 'kwok.x-k8s.io/node': 'fake' },
    },
    spec: {},
  };
}
