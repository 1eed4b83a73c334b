/**
 * drunc's connection server from outside the cluster, on the real stack: a boot with the local
 * connection server gets a NodePort Service on `connectionServerNodePort`; a boot of another
 * session while that Service holds the port is refused, naming the port and who holds it.
 */
import { randomInt } from 'node:crypto';
import { CommandType, ProcessEventType } from '@kpm/contracts';
import { BootWorkerHarness } from '../support/boot-worker-harness';
import { daqApplication, druncController } from '../support/daq-application';

jest.setTimeout(180_000);

// NodePorts are cluster-wide: a port of this run's own, away from the range's start.
const NODE_PORT = randomInt(31000, 32700);
const SERVER = 'local-connection-server';

let h: BootWorkerHarness;

beforeAll(async () => {
  h = await BootWorkerHarness.start('nodeport', {
    KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
    KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0',
    KPM_CONNECTION_SERVER_NODE_PORT: String(NODE_PORT),
  });
}, 120_000);

afterAll(() => h?.close(), 120_000);

it('exposes the connection server on its NodePort, and refuses a boot that would collide', async () => {
  const first = h.session('first');
  await h.send('boot-np-1', CommandType.boot, {
    session: first,
    user: 'alice',
    processes: [daqApplication(SERVER, '1'), druncController('root', '0')],
  });
  await h.factCount(ProcessEventType.processBooted, 'boot-np-1', 2);
  const service = await h.core.readNamespacedService({
    namespace: first,
    name: `${SERVER}-nodeport`,
  });
  expect(service.spec).toMatchObject({
    type: 'NodePort',
    ports: [expect.objectContaining({ port: 5000, targetPort: 5000, nodePort: NODE_PORT })],
  });
  expect(service.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Pod', name: SERVER });

  const second = h.session('second');
  await h.send('boot-np-2', CommandType.boot, {
    session: second,
    user: 'bob',
    processes: [daqApplication(SERVER, '1'), druncController('root', '0')],
  });
  const rejected = await h.fact(ProcessEventType.commandRejected, 'boot-np-2');
  expect(rejected.data).toMatchObject({
    errors: [
      {
        path: 'processes[0]',
        message: `connection_server_node_port ${NODE_PORT} is held by Service ${first}/${SERVER}-nodeport; free it or choose another port`,
      },
    ],
  });
  expect(await h.pods(second)).toEqual([]);
});
