/**
 * drunc's enveloped wire era against kpm's drunc gateway, on the local stack: the Python suite
 * test/support/python/drunc_enveloped (pytest, grpcio with stubs generated from the project's
 * enveloped-era .proto) replays drunc's web UI's exact calls (process table, LOGS, Restart, Kill,
 * Flush, the Sessions page's SessionManager) and drunc v0.10's shell flow on kwok nodes, the bad
 * inputs of that era, and a flow on the stack's real kubelet node with real log lines. Both eras
 * answer on the one port.
 */
import { join } from 'node:path';
import {
  GATEWAY_PROTO,
  GatewayHarness,
  kwokNodeNames,
  runDruncSuite,
  unaryCall,
} from '../support/drunc-gateway-harness';
import { realNode, realNodeBootEnv, type RealNodeTarget } from '../support/real-node';

jest.setTimeout(900_000);

const USER = 'daq-carol';
const OTHER_USER = 'daq-dave';
const CONFIGS = [
  'config/daqsystemtest/example-configs.data.xml:local-1x1-config',
  'config/daqsystemtest/example-configs.data.xml:local-2x3-config',
];

let harness: GatewayHarness;
let real: RealNodeTarget;

beforeAll(async () => {
  real = realNode();
  harness = await GatewayHarness.start('enveloped', {
    instance: 'drunc-enveloped-test',
    bootEnv: realNodeBootEnv(real),
    gatewayEnv: { KPM_DRUNC_GATEWAY_CONFIGURATIONS: CONFIGS.join(',') },
  });
}, 600_000);

afterAll(() => harness?.close(), 180_000);

describe("drunc's enveloped era through the drunc gateway", () => {
  it('serves both eras on one port: describe answers in each', async () => {
    const [enveloped, current] = await Promise.all([
      describeIn(join(GATEWAY_PROTO, 'enveloped'), 'dunedaq.druncschema.ProcessManager'),
      describeIn(GATEWAY_PROTO, 'dunedaq.druncschema.process_manager.ProcessManager'),
    ]);
    expect(enveloped).toMatchObject({
      name: 'kpm',
      flag: 0,
      data: { type_url: 'type.googleapis.com/dunedaq.druncschema.Description' },
    });
    expect(current).toMatchObject({ type: 'process_manager', name: 'kpm', flag: 0 });
  });

  it("replays drunc's web UI and v0.10 shell, their bad inputs, and a real-node flow", async () => {
    const base = harness.trio.session('env');
    for (const suffix of ['ui', 'ui-other', 'shell', 'bad', 'real', 'real-end', 'dummy'])
      harness.trio.session(`env-${suffix}`);
    const files = [
      'test_bad_inputs.py',
      'test_real_node.py',
      'test_shell_flow.py',
      'test_web_ui_calls.py',
    ];
    const run = await runDruncSuite('drunc_enveloped', files, {
      KPM_DRUNC_GATEWAY: harness.address,
      KPM_TEST_SESSION: base,
      KPM_TEST_USER: USER,
      KPM_TEST_OTHER_USER: OTHER_USER,
      KPM_TEST_NODES: (await kwokNodeNames()).join(','),
      KPM_REAL_NODE: real.node,
      KPM_TEST_CONFIGS: CONFIGS.join(','),
    });
    expect(run.outcome).toEqual({ code: 0, output: '' });
    expect(run.passed).toBe(24);
    expect(run.stdout).not.toMatch(/skipped|deselected|xfail/);
  });
});

/** A describe call of one era, through a client loaded from that era's own .proto. */
function describeIn(protoDir: string, service: string): Promise<Record<string, unknown>> {
  const request = { token: { token: `${USER}-token`, user_name: USER } };
  return unaryCall(protoDir, service, harness.address, 'describe', request, 10);
}
