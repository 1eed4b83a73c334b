/**
 * The demo's session (examples/demo-session.yaml) played against the real boot-worker, watcher
 * and state: what `npm run demo` shows after the stack and services are up — on the real node
 * (real containers: ru-03 really exits 3, the shutdown really signals them), as the demo runs
 * it, and on kwok's simulated nodes, where it falls back. (`stack up` and `services up`
 * themselves are proven by the stack suites and cli.test.ts.) The narrative must show the
 * shutdown stages in drunc's order and end with every exit code, the same on both.
 */
import pc from 'picocolors';
import { eventually } from '@kpm/common';
import { connectProcessManager, type ProcessManagerClient } from '@kpm/client';
import { placeOnRealNode } from '../../apps/cli/src/demo/demo-placement';
import { playDemoSession } from '../../apps/cli/src/demo/demo-session';
import { readSessionFile } from '../../apps/cli/src/session-file/session-file';
import { KpmTrio } from '../support/kpm-trio';
import { realNode } from '../support/real-node';
import { stackEnv } from '../support/stack-env';

jest.setTimeout(240_000);

/** The node ports of the demo's connection server and root controller (-b 0.0.0.0:30500, --port 30333). */
const DEMO_NODE_PORTS = [30333, 30500];

/**
 * Until no Service holds the demo's node ports: the row before's are deleted by the garbage
 * collector once their pods are gone, which may come after its terminate has completed.
 */
async function demoNodePortsFree(): Promise<void> {
  await eventually(
    async () => {
      const services = await h.harness.core.listServiceForAllNamespaces();
      const held = services.items.filter((s) =>
        (s.spec?.ports ?? []).some((p) => DEMO_NODE_PORTS.includes(p.nodePort ?? 0)),
      );
      return held.length === 0;
    },
    { what: `no Service holding node ports ${DEMO_NODE_PORTS.join(', ')}`, timeoutMs: 60_000 },
  );
}

let h: KpmTrio;
let client: ProcessManagerClient;

beforeAll(async () => {
  h = await KpmTrio.start('cli-demo');
  client = connectProcessManager({ brokers: stackEnv().brokers, topicPrefix: h.prefix });
}, 180_000);

afterAll(async () => {
  await client?.close();
  await h?.close();
}, 180_000);

it.each([{ on: 'the real node' }, { on: "kwok's nodes" }])(
  'boots the demo tree on $on, lets ru-03 fail with 3, terminates the rest in shutdown order',
  async ({ on }) => {
    const real = on === 'the real node';
    const session = h.session(real ? 'demo-real' : 'demo');
    const parsed = readSessionFile('examples/demo-session.yaml', { session, defaultUser: 'daq' });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const boot = real ? placeOnRealNode(parsed.boot, realNode()) : parsed.boot;
    await demoNodePortsFree();
    const lines: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((...a: unknown[]) => {
      lines.push(...a.join(' ').split('\n'));
    });
    let summary;
    try {
      summary = await playDemoSession(client, boot, pc.createColors(false), (text) =>
        lines.push(`▸ ${text}`),
      );
    } finally {
      log.mockRestore();
    }

    const nodes = [...new Set(summary.boot.processes.map((p) => p.nodeName ?? ''))];
    if (real) expect(nodes).toEqual([realNode().node]);
    else expect(nodes.every((node) => /^kpm-node-\d$/.test(node))).toBe(true);
    // Every exit code: ru-03 failed by itself (3), applications were stopped (143), controllers
    // and the connection server stop gracefully (0).
    const exits = Object.fromEntries(
      summary.processes.map((p) => [p.description.metadata.name, p.returnCode]),
    );
    expect(exits).toEqual({
      'root-controller': 0,
      'local-connection-server': 0,
      'readout-controller': 0,
      'dataflow-controller': 0,
      'ru-01': 143,
      'ru-02': 143,
      'ru-03': 3,
      dfo: 143,
      trigger: 143,
    });
    expect(summary.terminate.status).toBe('succeeded');

    // The narrative: stages in drunc's order, then the terminations as they came.
    const stages = lines.filter((l) => /^ {2}stage \d/.test(l)).map((l) => l.split(/\s{2,}/)[2]);
    expect(stages).toEqual([
      'application',
      'segment-controller',
      'root-controller',
      'infrastructure-applications',
    ]);
    expect(lines).toContain('  ru-03 terminated: exit 3 (Error)');
    const ended = lines.flatMap((l) => /s {2}(\S+) terminated: exit/.exec(l)?.[1] ?? []);
    expect(ended.indexOf('readout-controller')).toBeGreaterThan(ended.indexOf('ru-01'));
    expect(ended.indexOf('root-controller')).toBeGreaterThan(ended.indexOf('dataflow-controller'));
    expect(ended.at(-1)).toBe('local-connection-server');
    expect(
      lines.some((l) => l.startsWith(`terminate ${summary.terminate.commandId} succeeded`)),
    ).toBe(true);
  },
);
