/**
 * drunc's enveloped wire era against kpm's drunc gateway, on the local stack: the Python suite
 * test/support/python/drunc_enveloped (pytest, grpcio with stubs generated from the project's
 * enveloped-era .proto) replays drunc's web UI's exact calls (process table, LOGS, Restart, Kill,
 * Flush, the Sessions page's SessionManager) and drunc v0.10's shell flow on kwok nodes, the bad
 * inputs of that era, and a flow on the stack's real kubelet node with real log lines. Both eras
 * answer on the one port.
 */
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { KpmTrio } from '../support/kpm-trio';
import { projectPython, runPythonModule } from '../support/python';
import { realNode, realNodeBootEnv, type RealNodeTarget } from '../support/real-node';
import { freePort, ServiceProcess } from '../support/service-process';
import { stackEnv } from '../support/stack-env';

jest.setTimeout(900_000);

const USER = 'daq-carol';
const OTHER_USER = 'daq-dave';
const SUITE = 'test/support/python/drunc_enveloped';
const CONFIGS = [
  'config/daqsystemtest/example-configs.data.xml:local-1x1-config',
  'config/daqsystemtest/example-configs.data.xml:local-2x3-config',
];
const PROTO = join(__dirname, '..', '..', 'apps', 'drunc-gateway', 'proto');

let trio: KpmTrio;
let gateway: ServiceProcess;
let address: string;
let python: string;
let real: RealNodeTarget;

async function kwokNodeNames(): Promise<string[]> {
  const config = new KubeConfig();
  config.loadFromFile(stackEnv().kubeconfig!);
  const list = await config.makeApiClient(CoreV1Api).listNode();
  return list.items
    .filter((n) => n.status?.nodeInfo?.kubeletVersion?.startsWith('kwok'))
    .map((n) => n.metadata!.name!)
    .sort();
}

beforeAll(async () => {
  python = await projectPython();
  real = realNode();
  trio = await KpmTrio.start('enveloped', realNodeBootEnv(real));
  address = `grpc://127.0.0.1:${await freePort()}`;
  const { brokers, kubeconfig, topicReplication } = stackEnv();
  gateway = new ServiceProcess('drunc-gateway', {
    KPM_KAFKA_BROKERS: brokers.join(','),
    ...topicReplication,
    KPM_TOPIC_PREFIX: trio.prefix,
    KPM_INSTANCE: 'drunc-enveloped-test',
    KPM_STATE_URL: await trio.stateUrl(),
    KPM_DRUNC_GATEWAY_PORT: address.split(':').pop()!,
    KPM_DRUNC_GATEWAY_CONFIGURATIONS: CONFIGS.join(','),
    ...(kubeconfig ? { KUBECONFIG: kubeconfig } : {}),
  });
  await gateway.start();
}, 600_000);

afterAll(async () => {
  await gateway?.kill('SIGTERM');
  await trio?.close();
}, 180_000);

describe("drunc's enveloped era through the drunc gateway", () => {
  it('serves both eras on one port: describe answers in each', async () => {
    const [enveloped, current] = await Promise.all([
      describeIn(join(PROTO, 'enveloped'), 'dunedaq.druncschema.ProcessManager'),
      describeIn(PROTO, 'dunedaq.druncschema.process_manager.ProcessManager'),
    ]);
    expect(enveloped).toMatchObject({
      name: 'kpm',
      flag: 0,
      data: { type_url: 'type.googleapis.com/dunedaq.druncschema.Description' },
    });
    expect(current).toMatchObject({ type: 'process_manager', name: 'kpm', flag: 0 });
  });

  it("replays drunc's web UI and v0.10 shell, their bad inputs, and a real-node flow", async () => {
    const base = trio.session('env');
    for (const suffix of ['ui', 'ui-other', 'shell', 'bad', 'real', 'real-end', 'dummy'])
      trio.session(`env-${suffix}`);
    const files = [
      'test_bad_inputs.py',
      'test_real_node.py',
      'test_shell_flow.py',
      'test_web_ui_calls.py',
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
        KPM_TEST_NODES: (await kwokNodeNames()).join(','),
        KPM_REAL_NODE: real.node,
        KPM_TEST_CONFIGS: CONFIGS.join(','),
      },
    );
    expect({ code, output: code === 0 ? '' : `${stdout}\n${stderr}`.slice(-12_000) }).toEqual({
      code: 0,
      output: '',
    });
    expect(Number(/(\d+) passed/.exec(stdout)?.[1])).toBe(24);
    expect(stdout).not.toMatch(/skipped|deselected|xfail/);
  });
});

/** A describe call of one era, through a client loaded from that era's own .proto. */
function describeIn(protoDir: string, service: string): Promise<Record<string, unknown>> {
  const definition = protoLoader.loadSync('druncschema/process_manager.proto', {
    keepCase: true,
    defaults: true,
    oneofs: true,
    includeDirs: [protoDir],
  });
  const Client = grpc.makeGenericClientConstructor(
    definition[service] as grpc.ServiceDefinition,
    service,
  );
  const client = new Client(
    address.replace('grpc://', ''),
    grpc.credentials.createInsecure(),
  ) as unknown as grpc.Client & {
    describe(
      r: unknown,
      o: grpc.CallOptions,
      cb: (e: grpc.ServiceError | null, v: Record<string, unknown>) => void,
    ): void;
  };
  const request = { token: { token: `${USER}-token`, user_name: USER } };
  return new Promise((resolve, reject) =>
    client.describe(request, { deadline: Date.now() + 10_000 }, (error, value) => {
      client.close();
      return error ? reject(error) : resolve(value);
    }),
  );
}
