/**
 * drunc's own clients against kpm's drunc gateway, on the local stack: the Python suite
 * (test/support/python/drunc_gateway, pytest, grpcio with stubs generated from the project's
 * .proto) replays drunc's unified-shell flow on a drunc-shaped DUNE session and sends the bad
 * inputs drunc's clients can send; on the stack's real kubelet node, logs return real lines.
 * Then the gateway is killed mid-call and started again: the retried call is answered from the
 * first command's completion, and the process exists once.
 */
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { BroadcastEventType, CommandType, topicName, type Broadcast } from '@kpm/contracts';
import { KpmTrio } from '../support/kpm-trio';
import { projectPython, runPythonModule } from '../support/python';
import { realNode, realNodeBootEnv, type RealNodeTarget } from '../support/real-node';
import { freePort, ServiceProcess } from '../support/service-process';
import { stackEnv } from '../support/stack-env';
import { TopicProbe } from '../support/topic-probe';

jest.setTimeout(900_000);

const USER = 'daq-alice';
const OTHER_USER = 'daq-bob';
const SUITE = 'test/support/python/drunc_gateway';

let trio: KpmTrio;
let gateway: ServiceProcess;
let address: string;
let python: string;
let kwokNodes: string[];
let real: RealNodeTarget;

/** The kwok nodes: drunc's allowed_hosts of the simulated session. */
async function kwokNodeNames(): Promise<string[]> {
  const config = new KubeConfig();
  config.loadFromFile(stackEnv().kubeconfig!);
  const list = await config.makeApiClient(CoreV1Api).listNode();
  return list.items
    .filter((n) => n.status?.nodeInfo?.kubeletVersion?.startsWith('kwok'))
    .map((n) => n.metadata!.name!)
    .sort();
}

async function startGateway(): Promise<void> {
  const { brokers, kubeconfig, topicReplication } = stackEnv();
  gateway = new ServiceProcess('drunc-gateway', {
    KPM_KAFKA_BROKERS: brokers.join(','),
    ...topicReplication,
    KPM_TOPIC_PREFIX: trio.prefix,
    KPM_INSTANCE: 'drunc-gateway-test',
    KPM_STATE_URL: await trio.stateUrl(),
    KPM_DRUNC_GATEWAY_PORT: address.split(':').pop()!,
    ...(kubeconfig ? { KUBECONFIG: kubeconfig } : {}),
  });
  await gateway.start();
}

beforeAll(async () => {
  python = await projectPython();
  real = realNode();
  kwokNodes = await kwokNodeNames();
  trio = await KpmTrio.start('gateway', realNodeBootEnv(real));
  address = `grpc://127.0.0.1:${await freePort()}`;
  await startGateway();
}, 600_000);

afterAll(async () => {
  await gateway?.kill('SIGTERM');
  await trio?.close();
}, 180_000);

describe('drunc gateway, driven from Python as drunc drives a process manager', () => {
  it("replays the unified shell's flow and refuses drunc's bad inputs as drunc's servers do", async () => {
    const base = trio.session('gw');
    for (const suffix of ['flow', 'bad', 'real', 'names', 'names2', 'deadline']) {
      trio.session(`gw-${suffix}`);
    }
    const broadcasts = await new TopicProbe(stackEnv().brokers, [
      topicName('broadcast', trio.prefix),
    ]).start();
    const files = [
      'test_bad_inputs.py',
      'test_real_node_logs.py',
      'test_unified_shell_flow.py',
      'test_names_and_deadlines.py',
    ];
    const { code, stdout, stderr } = await runPythonModule(
      python,
      'pytest',
      ['-q', '-p', 'no:cacheprovider', ...files.map((f) => join(SUITE, f))],
      600_000,
      {
        KPM_DRUNC_GATEWAY: address,
        KPM_TEST_SESSION: base,
        KPM_TEST_USER: USER,
        KPM_TEST_OTHER_USER: OTHER_USER,
        KPM_TEST_NODES: kwokNodes.join(','),
        KPM_REAL_NODE: real.node,
      },
    );
    expect({ code, output: code === 0 ? '' : `${stdout}\n${stderr}`.slice(-12_000) }).toEqual({
      code: 0,
      output: '',
    });
    const counted = /(\d+) passed/.exec(stdout);
    expect(Number(counted?.[1])).toBe(26);
    expect(stdout).not.toMatch(/skipped|deselected|xfail/);

    // What drunc's clients told the server is on kpm's broadcast, from the gateway, as sent.
    const fromGateway = (b: Broadcast) =>
      b.broadcastType === 'TEXT_MESSAGE' && b.emitter.service === 'drunc-gateway';
    try {
      await broadcasts.waitFor(
        (r) =>
          r.event?.type === BroadcastEventType.broadcast &&
          // the suite's last message: every one before it was answered after its broadcast
          (r.event.data as Broadcast).text === `send_msg from '${USER}': `,
      );
      const texts = broadcasts
        .events(BroadcastEventType.broadcast)
        .map((e) => e.data as Broadcast)
        .filter(fromGateway)
        .map((b) => b.text);
      for (const method of ['log_on_server', 'echo_on_server']) {
        for (const severity of ['INFO', 'debug', 'WARNING', 'ERROR', 'CRITICAL']) {
          expect(texts).toContain(`${method} from '${USER}' (${severity}): ${USER} connected`);
        }
        expect(texts).toContain(`${method} from '${USER}' (INFO): `);
        // A severity that names no level is not executed, so not announced.
        expect(texts.filter((t) => t.startsWith(`${method} from '${USER}' (LOUD)`))).toEqual([]);
      }
      expect(texts).toContain(`send_msg from '${USER}': session of ${USER} ended`);
    } finally {
      await broadcasts.stop();
    }
  });
});

describe('drunc gateway restarted mid-call', () => {
  it('answers the retried boot from the first command: one process, one uuid, one command id', async () => {
    const session = trio.session('gw-crash');
    const probe = await new TopicProbe(stackEnv().brokers, [
      topicName('commands', trio.prefix),
    ]).start();
    try {
      const request = bootRequest(session, kwokNodes[0]);
      const first = callBoot(request);
      const command = await probe.waitFor(
        (r) =>
          r.event?.type === CommandType.boot &&
          (r.event.data as { session?: string }).session === session,
      );
      await gateway.kill('SIGKILL');
      await expect(first).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
      await startGateway();
      const retried = await callBoot(request);
      const again = await callBoot(request);
      const uuids = [retried, again].map((r) => r.values[0].uuid.uuid);
      expect(new Set(uuids).size).toBe(1);
      const listed = await callPs(session);
      expect(listed.values.map((p) => p.uuid.uuid)).toEqual([uuids[0]]);
      const bootIds = new Set(
        probe
          .events(CommandType.boot)
          .filter((e) => (e.data as { session?: string }).session === session)
          .map((e) => e.id),
      );
      expect([...bootIds]).toEqual([command.event!.id]);
    } finally {
      await probe.stop();
    }
  });
});

interface Instance {
  uuid: { uuid: string };
}
interface InstanceList {
  values: Instance[];
}

function client(): grpc.Client & Record<string, grpc.MethodDefinition<unknown, unknown>> {
  const proto = join(__dirname, '..', '..', 'apps', 'drunc-gateway', 'proto');
  const definition = protoLoader.loadSync('druncschema/process_manager.proto', {
    keepCase: true,
    defaults: true,
    oneofs: true,
    includeDirs: [proto],
  });
  const loaded = grpc.loadPackageDefinition(definition) as unknown as {
    dunedaq: {
      druncschema: { process_manager: { ProcessManager: grpc.ServiceClientConstructor } };
    };
  };
  const Service = loaded.dunedaq.druncschema.process_manager.ProcessManager;
  return new Service(address.replace('grpc://', ''), grpc.credentials.createInsecure()) as never;
}

function unary<T>(method: string, request: unknown, timeoutSeconds: number): Promise<T> {
  const c = client() as unknown as Record<
    string,
    (r: unknown, o: grpc.CallOptions, cb: (e: grpc.ServiceError | null, v: T) => void) => void
  >;
  return new Promise<T>((resolve, reject) =>
    c[method](request, { deadline: Date.now() + timeoutSeconds * 1000 }, (error, value) => {
      (c as unknown as grpc.Client).close();
      return error ? reject(error) : resolve(value);
    }),
  );
}

const token = { token: `${USER}-token`, user_name: USER };
const callBoot = (request: unknown) => unary<InstanceList>('boot', request, 60);
const callPs = (session: string) =>
  unary<InstanceList>('ps', { token, names: ['.*'], session, user: '', uuids: [] }, 60);

function bootRequest(session: string, host: string) {
  return {
    token,
    process_description: {
      metadata: { user: USER, session, name: 'root-controller', hostname: host, tree_id: '0' },
      executable_and_arguments: [{ exec: 'drunc-controller', args: ['-n', 'root-controller'] }],
      env: { DUNEDAQ_SESSION: session },
      process_execution_directory: '/home/daq/work',
      process_logs_path: `/home/daq/work/log_${USER}_${session}_root-controller.txt`,
    },
    process_restriction: { allowed_hosts: [host] },
  };
}
