/**
 * drunc's own clients against kpm's drunc gateway, on the local stack: the Python suite
 * (test/support/python/drunc_gateway, pytest, grpcio with stubs generated from the project's
 * .proto) replays drunc's unified-shell flow on a drunc-shaped DUNE session and sends the bad
 * inputs drunc's clients can send; on the stack's real kubelet node, logs return real lines.
 * Then the gateway is killed mid-call and started again: the retried call is answered from the
 * first command's completion, and the process exists once.
 */
import * as grpc from '@grpc/grpc-js';
import { BroadcastEventType, CommandType, topicName, type Broadcast } from '@kpm/contracts';
import {
  GATEWAY_PROTO,
  GatewayHarness,
  kwokNodeNames,
  runDruncSuite,
  unaryCall,
} from '../support/drunc-gateway-harness';
import { realNode, realNodeBootEnv, type RealNodeTarget } from '../support/real-node';
import { stackEnv } from '../support/stack-env';
import { TopicProbe } from '../support/topic-probe';

jest.setTimeout(900_000);

const USER = 'daq-alice';
const OTHER_USER = 'daq-bob';
const SERVICE = 'dunedaq.druncschema.process_manager.ProcessManager';

let harness: GatewayHarness;
let kwokNodes: string[];
let real: RealNodeTarget;

beforeAll(async () => {
  real = realNode();
  kwokNodes = await kwokNodeNames();
  harness = await GatewayHarness.start('gateway', {
    instance: 'drunc-gateway-test',
    bootEnv: realNodeBootEnv(real),
  });
}, 600_000);

afterAll(() => harness?.close(), 180_000);

describe('drunc gateway, driven from Python as drunc drives a process manager', () => {
  it("replays the unified shell's flow and refuses drunc's bad inputs as drunc's servers do", async () => {
    const base = harness.trio.session('gw');
    for (const suffix of ['flow', 'bad', 'real', 'real-end', 'names', 'names2', 'deadline']) {
      harness.trio.session(`gw-${suffix}`);
    }
    const broadcasts = await new TopicProbe(stackEnv().brokers, [
      topicName('broadcast', harness.trio.prefix),
    ]).start();
    const files = [
      'test_bad_inputs.py',
      'test_real_node.py',
      'test_unified_shell_flow.py',
      'test_names_and_deadlines.py',
    ];
    const run = await runDruncSuite('drunc_gateway', files, {
      KPM_DRUNC_GATEWAY: harness.address,
      KPM_TEST_SESSION: base,
      KPM_TEST_USER: USER,
      KPM_TEST_OTHER_USER: OTHER_USER,
      KPM_TEST_NODES: kwokNodes.join(','),
      KPM_REAL_NODE: real.node,
    });
    expect(run.outcome).toEqual({ code: 0, output: '' });
    expect(run.passed).toBe(30);
    expect(run.stdout).not.toMatch(/skipped|deselected|xfail/);

    // What drunc's clients told the server is on kpm's broadcast, from the gateway, as sent.
    const fromGateway = (b: Broadcast) =>
      b.broadcastType === 'TEXT_MESSAGE' && b.emitter.service === 'drunc-gateway';
    try {
      await broadcasts.waitFor(
        (r) =>
          r.event?.type === BroadcastEventType.broadcast &&
          // the suite's last message: every one before it was answered after its broadcast
          (r.event.data as unknown as Broadcast).text === `send_msg from '${USER}': `,
      );
      const texts = broadcasts
        .events(BroadcastEventType.broadcast)
        .map((e) => e.data as unknown as Broadcast)
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
    const session = harness.trio.session('gw-crash');
    const probe = await new TopicProbe(stackEnv().brokers, [
      topicName('commands', harness.trio.prefix),
    ]).start();
    try {
      const request = bootRequest(session, kwokNodes[0]);
      const first = callBoot(request);
      const command = await probe.waitFor(
        (r) =>
          r.event?.type === CommandType.boot &&
          (r.event.data as { session?: string }).session === session,
      );
      await harness.kill('SIGKILL');
      await expect(first).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
      await harness.startGateway();
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

function unary<T>(method: string, request: unknown, timeoutSeconds: number): Promise<T> {
  return unaryCall<T>(GATEWAY_PROTO, SERVICE, harness.address, method, request, timeoutSeconds);
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
