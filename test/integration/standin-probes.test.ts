import { CoreV1Api, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { waitFor } from '@kpm/stack';
import { realNode } from '../support/real-node';
import { stackEnv } from '../support/stack-env';

/**
 * The DAQ stand-in (stack/images/daq-standin) passes the kubelet's own probes on the real node:
 * a gRPC probe on drunc's `-c grpc://host:N` port (grpc.health.v1), an httpGet on gunicorn's
 * `-b host:N` port, each only once the process listens (--ready-after).
 */

jest.setTimeout(120_000);

const target = realNode();
const namespace = `standin-probes-${Date.now().toString(36)}`;
let core: CoreV1Api;

const container = (name: string, command: string[], probe: object) => ({
  name,
  image: target.image,
  imagePullPolicy: 'Never',
  command,
  readinessProbe: { ...probe, periodSeconds: 1 },
});

beforeAll(async () => {
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromFile(stackEnv().kubeconfig!);
  core = kubeconfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } });
});

afterAll(async () => {
  await core.deleteNamespace({ name: namespace, gracePeriodSeconds: 0 }).catch(() => undefined);
});

it('is Ready through a gRPC probe and an httpGet probe, once it listens', async () => {
  const body: V1Pod = {
    metadata: { name: 'probes' },
    spec: {
      nodeName: target.node,
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 1,
      tolerations: [{ operator: 'Exists', effect: 'NoSchedule' }],
      containers: [
        container(
          'controller',
          ['drunc-controller', '-c', 'grpc://0.0.0.0:7070', '--ready-after', '3s'],
          { grpc: { port: 7070 } },
        ),
        container('connection-server', ['gunicorn', '-b', '0.0.0.0:7071', '--workers=1'], {
          httpGet: { port: 7071, path: '/' },
        }),
      ],
    },
  };
  await core.createNamespacedPod({ namespace, body });
  let pod: V1Pod | undefined;
  await waitFor(
    'both containers Ready',
    async () => {
      pod = await core.readNamespacedPod({ namespace, name: 'probes' });
      const statuses = pod.status?.containerStatuses ?? [];
      return statuses.length === 2 && statuses.every((status) => status.ready);
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  // The gRPC probe passed only after --ready-after: the port opened 3 s after the start.
  const controller = pod!.status!.containerStatuses!.find((s) => s.name === 'controller')!;
  const started = new Date(controller.state!.running!.startedAt!).getTime();
  const ready = pod!.status!.conditions!.find((c) => c.type === 'Ready')!;
  expect(new Date(ready.lastTransitionTime!).getTime() - started).toBeGreaterThanOrEqual(2000);
});
