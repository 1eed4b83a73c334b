/**
 * drunc's node ports, on the real stack: the connection server and the root controller get a
 * NodePort Service named after their pod, on the port of their own command line (gunicorn's
 * `-b`, the controller's `-c grpc://host:N`), the pod in the pod network (every other process in
 * the node's); a boot of another session while those Services hold the ports is refused, naming
 * the port and who holds it, and a root controller whose port cannot be a node port is refused
 * naming the range.
 */
import { CommandType, ProcessEventType } from '@kpm/contracts';
import { BootWorkerHarness } from '../support/boot-worker-harness';
import { connectionServer, daqApplication } from '../support/daq-application';
import { suitePorts } from '../support/suite-ports';

jest.setTimeout(180_000);

const PORTS = suitePorts('connection-server-nodeport', 2);
const SERVER_PORT = PORTS.node(0);
const ROOT_PORT = PORTS.node(1);
const SERVER = 'local-connection-server';
const root = (port: number) => ({
  name: 'root',
  treeId: '0',
  executableAndArguments: [
    { exec: 'drunc-controller', args: ['-n', 'root', '-c', `grpc://kpm-node-1:${port}`] },
  ],
});

let h: BootWorkerHarness;

beforeAll(async () => {
  h = await BootWorkerHarness.start('nodeport', {
    KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
    KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0',
  });
}, 120_000);

afterAll(() => h?.close(), 120_000);

it('exposes the connection server and the root controller on their node ports, and refuses a boot that would collide', async () => {
  const first = h.session('first');
  await h.send('boot-np-1', CommandType.boot, {
    session: first,
    user: 'alice',
    processes: [connectionServer(SERVER_PORT), root(ROOT_PORT), daqApplication('ru-01', '0.1')],
  });
  await h.factCount(ProcessEventType.processBooted, 'boot-np-1', 3);
  for (const [name, port] of [
    [SERVER, SERVER_PORT],
    ['root', ROOT_PORT],
  ] as const) {
    const service = await h.core.readNamespacedService({ namespace: first, name });
    expect(service.spec).toMatchObject({
      type: 'NodePort',
      externalTrafficPolicy: 'Local',
      ports: [expect.objectContaining({ port, targetPort: port, nodePort: port })],
    });
    expect(service.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Pod', name });
  }
  const pods = Object.fromEntries((await h.pods(first)).map((p) => [p.metadata!.name, p.spec!]));
  expect(pods[SERVER].hostNetwork).toBeUndefined();
  expect(pods.root.hostNetwork).toBeUndefined();
  expect(pods['ru-01']).toMatchObject({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' });
  expect(pods.root.containers[0].command![2]).toContain(`"grpc://\${POD_IP}:${ROOT_PORT}"`);

  const second = h.session('second');
  await h.send('boot-np-2', CommandType.boot, {
    session: second,
    user: 'bob',
    processes: [connectionServer(SERVER_PORT), root(ROOT_PORT)],
  });
  const rejected = await h.fact(ProcessEventType.commandRejected, 'boot-np-2');
  expect(rejected.data).toMatchObject({
    errors: [
      {
        path: 'processes[0]',
        message: `node port ${SERVER_PORT} is held by Service ${first}/${SERVER}; free it or choose another port`,
      },
      {
        path: 'processes[1]',
        message: `node port ${ROOT_PORT} is held by Service ${first}/root; free it or choose another port`,
      },
    ],
  });
  expect(await h.pods(second)).toEqual([]);
});

it('refuses a root controller whose port cannot be a node port, naming the range', async () => {
  const session = h.session('low');
  await h.send('boot-np-low', CommandType.boot, {
    session,
    user: 'alice',
    processes: [root(3333)],
  });
  const rejected = await h.fact(ProcessEventType.commandRejected, 'boot-np-low');
  expect(rejected.data).toMatchObject({
    errors: [
      {
        path: 'processes[0].executableAndArguments',
        message: expect.stringContaining(
          "listens on 3333, which drunc exposes as the same node port, outside the cluster's NodePort range 30000-32767",
        ),
      },
    ],
  });
});
