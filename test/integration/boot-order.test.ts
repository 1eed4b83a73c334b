/**
 * drunc's boot order on the real stack: the local connection server is created and Ready before
 * the root controller is created; the root controller is Ready before any other process is
 * created. Observed by a pod watch (events arrive in the API server's order).
 */
import { Watch, type V1Pod } from '@kubernetes/client-node';
import { CommandType, ProcessEventType } from '@kpm/contracts';
import { BootWorkerHarness } from '../support/boot-worker-harness';
import { connectionServer } from '../support/daq-application';
import { suitePorts } from '../support/suite-ports';

// drunc exposes the root controller and the connection server on their own ports as node ports.
const PORTS = suitePorts('boot-order', 2);
const ROOT_PORT = PORTS.node(0);
const SERVER_PORT = PORTS.node(1);

jest.setTimeout(180_000);

const app = (name: string, treeId: string, extra: Record<string, unknown> = {}) => ({
  name,
  treeId,
  executableAndArguments: [{ exec: 'daq_application', args: ['--name', name] }],
  ...extra,
});

/** A drunc controller: the same process running drunc-controller (its role is by executable). */
const controller = (...args: Parameters<typeof app>) => ({
  ...app(...args),
  executableAndArguments: [{ exec: 'drunc-controller', args: ['--name', args[0]] }],
});

/** A probed process whose simulated probe passes `ms` after it started running. */
const readyAfter = (ms: number) => ({ annotations: { 'sim.kpm.daq/ready-ms': String(ms) } });

let h: BootWorkerHarness;

beforeAll(async () => {
  h = await BootWorkerHarness.start('order', {
    KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
    KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0',
    KPM_POD_READY_TIMEOUT_SECONDS: '20',
    KPM_CONTROLLER_READINESS_PROBE: 'tcp',
  });
}, 120_000);

afterAll(() => h?.close(), 120_000);

const isReady = (pod: V1Pod) =>
  (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/**
 * `created <name>`, `running <name>` (started, not Ready yet) and `ready <name>` in the order the
 * API server reported them.
 */
async function recordLife(session: string): Promise<{ steps: string[]; stop: () => void }> {
  const steps: string[] = [];
  const controller = await new Watch(h.kubeconfig).watch(
    '/api/v1/pods',
    { labelSelector: `${h.labels.session}=${session}` },
    (_type: string, pod: V1Pod) => {
      const name = pod.metadata?.name ?? '';
      if (!steps.includes(`created ${name}`)) steps.push(`created ${name}`);
      const running = pod.status?.phase === 'Running';
      if (running && !isReady(pod) && !steps.includes(`running ${name}`))
        steps.push(`running ${name}`);
      if (isReady(pod) && !steps.includes(`ready ${name}`)) steps.push(`ready ${name}`);
    },
    () => undefined,
  );
  return { steps, stop: () => controller.abort() };
}

it('creates the connection server, waits for it; then the root controller, waits; then the rest', async () => {
  const session = h.session('order');
  const life = await recordLife(session);
  // Listed in the opposite order: the order is drunc's, not the command's.
  const processes = [
    app('ru-01', '0.1.1'),
    app('ru-02', '0.1.2'),
    controller('seg', '0.1'),
    {
      ...controller('root', '0', readyAfter(1000)),
      executableAndArguments: [{ exec: 'drunc-controller', args: ['--port', String(ROOT_PORT)] }],
    },
    { ...connectionServer(SERVER_PORT), ...readyAfter(1000) },
  ];
  await h.send('boot-order', CommandType.boot, { session, user: 'alice', processes });
  await h.factCount(ProcessEventType.processBooted, 'boot-order', processes.length);
  await h.until(
    () => Promise.resolve(life.steps),
    (steps) => steps.filter((s) => s.startsWith('created')).length === processes.length,
  );
  life.stop();
  const at = (step: string) => life.steps.indexOf(step);
  expect(at('created local-connection-server')).toBe(0);
  // Both probed: each runs a while before its probe passes, and the next waits for that.
  expect(at('running local-connection-server')).toBeGreaterThan(0);
  expect(at('ready local-connection-server')).toBeGreaterThan(
    at('running local-connection-server'),
  );
  expect(at('ready local-connection-server')).toBeLessThan(at('created root'));
  expect(at('running root')).toBeGreaterThan(at('created root'));
  expect(at('ready root')).toBeGreaterThan(at('running root'));
  for (const name of ['seg', 'ru-01', 'ru-02']) {
    expect(at(`created ${name}`)).toBeGreaterThan(at('ready root'));
  }
  const server = (await h.pods(session)).find(
    (p) => p.metadata!.name === 'local-connection-server',
  );
  expect(server!.spec!.containers[0].readinessProbe).toMatchObject({
    tcpSocket: { port: SERVER_PORT },
    periodSeconds: 1,
  });
  const root = (await h.pods(session)).find((p) => p.metadata!.name === 'root');
  expect(root!.spec!.containers[0].readinessProbe).toMatchObject({
    tcpSocket: { port: ROOT_PORT },
  });
  // Unprobed processes are Ready as they start: no `running` step of their own.
  for (const name of ['seg', 'ru-01', 'ru-02']) expect(at(`running ${name}`)).toBe(-1);
});

it('fails everything after a root controller that fails, creating none of it', async () => {
  const session = h.session('rootfail');
  const processes = [
    connectionServer(SERVER_PORT + 1),
    { ...controller('root', '0'), image: 'kpm.invalid/bad-image:latest' },
    app('ru-01', '0.1.1'),
  ];
  await h.send('boot-rootfail', CommandType.boot, { session, user: 'alice', processes });
  const failed = await h.factCount(ProcessEventType.processBootFailed, 'boot-rootfail', 2);
  const codes = Object.fromEntries(
    failed.map((f) => [f.data.name, (f.data.error as { code: string }).code]),
  );
  expect(codes).toEqual({ root: 'ErrImagePull', 'ru-01': 'RootControllerFailed' });
  const names = (await h.pods(session)).map((p) => p.metadata!.name).sort();
  expect(names).toEqual(['local-connection-server', 'root']);
});
