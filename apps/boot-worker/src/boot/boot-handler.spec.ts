import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@kpm/common';
import type { BootCommand, FieldError } from '@kpm/contracts';
import {
  controller,
  fixture,
  SESSION,
  spec,
  TREE,
  USER,
  type Fixture,
} from '../__fixtures__/boot-worker-fixture';
import type { PodScript } from '../__fixtures__/fake-cluster';
import { NAMED_READ_AT_MOST } from './boot-checks';

/** A kpm configuration file holding `config` (JSON is YAML), for settings with no variable. */
function configFile(config: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'kpm-boot-handler-')), 'kpm.yaml');
  writeFileSync(file, JSON.stringify(config));
  return file;
}

const boot = (processes = TREE): BootCommand => ({ session: SESSION, user: USER, processes });

async function run(f: Fixture, command: BootCommand, id = 'boot-1'): Promise<FieldError[]> {
  return f.handlers.boot.handle(command, f.context(id));
}

/** How each process's boot ended: `name booted` or `name CODE`. */
function outcomes(f: Fixture): string[] {
  const booted = f.factsOf('process.booted').map((e) => {
    const { process } = e.data as { process: { description: { metadata: { name: string } } } };
    return `${process.description.metadata.name} booted`;
  });
  const failed = f
    .factsOf('process.boot-failed')
    .map((e) => `${e.data.name as string} ${(e.data.error as { code: string }).code}`);
  return [...booted, ...failed].sort();
}

describe('BootHandler: the boot of a tree in drunc order', () => {
  it('creates the connection server, waits Ready; the root controller, waits Ready; then the rest at once', async () => {
    const f = fixture();
    expect(await run(f, boot())).toEqual([]);
    expect(f.cluster.timeline(/namespace|pod/)).toEqual([
      '+0s create namespace run-7',
      '+0s create pod run-7/local-connection-server',
      '+1s ready pod run-7/local-connection-server',
      '+1s create pod run-7/root',
      '+2s ready pod run-7/root',
      '+2s create pod run-7/ru-01',
      '+2s create pod run-7/seg',
      '+2s create pod run-7/ru-02',
    ]);
    expect(f.facts.map((e) => e.type.replace(/^daq\.kpm\.|\.v1$/g, ''))).toEqual([
      'boot.accepted',
      ...Array<string>(5).fill('process.booted'),
    ]);
    expect(outcomes(f)).toEqual(TREE.map((p) => `${p.name} booted`).sort());
  });

  it('makes the namespace while boot.accepted goes out, and creates no pod before it is on Kafka', async () => {
    const f = fixture();
    const release = f.holdFacts();
    const booting = run(f, boot());
    await eventually(() => f.cluster.timeline(/create namespace/).length === 1, {
      what: 'the namespace made while the acceptance is held',
    });
    expect(f.cluster.timeline(/create pod/)).toEqual([]);
    expect(f.facts).toEqual([]);
    release();
    expect(await booting).toEqual([]);
    expect(f.facts[0].type).toBe('daq.kpm.boot.accepted.v1');
    expect(f.cluster.timeline(/create pod/)).toHaveLength(TREE.length);
  });

  it("gives a later boot's pods the alias of the connection server running in the session", async () => {
    const f = fixture();
    const [, server] = TREE;
    expect(await run(f, boot([server]), 'boot-1')).toEqual([]);
    const service = await f.cluster.services.read(SESSION, 'local-connection-server');
    expect(service?.spec?.clusterIP).toBeTruthy();
    // As drunc's driver boots: one call per process, the connection server already running.
    expect(await run(f, boot([spec('ru-03', '0.1.3')]), 'boot-2')).toEqual([]);
    const pod = await f.cluster.pods.read(SESSION, 'ru-03');
    expect(pod?.spec?.hostAliases).toEqual([
      { ip: service!.spec!.clusterIP, hostnames: ['localhost'] },
    ]);
  });

  it('creates the other infrastructure applications before the root controller, as drunc’s driver', async () => {
    const f = fixture();
    f.cluster.scripts.set('db', { exitsAfterMs: 100, exitCode: 1 });
    await run(f, boot([...TREE, spec('db', '3')]));
    const created = f.cluster.timeline(/create pod/).map((line) => line.split('/').pop());
    expect(created.slice(0, 3)).toEqual(['local-connection-server', 'db', 'root']);
    // A failing infrastructure application stops nothing after it.
    expect(outcomes(f)).toContain('root booted');
  });

  it.each<[string, string, PodScript, string, string]>([
    [
      'the connection server cannot pull its image',
      'local-connection-server',
      { waitingReason: 'InvalidImageName' },
      'InvalidImageName',
      'ConnectionServerFailed',
    ],
    [
      'the root controller never becomes Ready',
      'root',
      { readyAfterMs: Infinity },
      'PodReadyTimeout',
      'RootControllerFailed',
    ],
    [
      'the root controller exits before it is Ready',
      'root',
      { readyAfterMs: 5_000, exitsAfterMs: 500, exitCode: 1 },
      'ExitedBeforeReady',
      'RootControllerFailed',
    ],
  ])('%s: the processes after it fail without a pod', async (_, name, script, code, after) => {
    const f = fixture();
    f.cluster.scripts.set(name, script);
    await run(f, boot());
    const created = f.cluster.timeline(/create pod/).map((line) => line.split(' ').pop());
    const order = ['run-7/local-connection-server', 'run-7/root'];
    expect(created).toEqual(order.slice(0, order.indexOf(`run-7/${name}`) + 1));
    const first = TREE.filter((p) => p.name === name || (name === 'root' && p.treeId === '2'));
    expect(outcomes(f)).toEqual(
      TREE.map((p) =>
        p.name === name
          ? `${p.name} ${code}`
          : first.includes(p)
            ? `${p.name} booted`
            : `${p.name} ${after}`,
      ).sort(),
    );
  });

  it('gives up on a root controller not Ready after podReadyTimeoutSeconds, by the clock', async () => {
    const f = fixture({ env: { KPM_POD_READY_TIMEOUT_SECONDS: '45' } });
    f.cluster.scripts.set('root', { readyAfterMs: Infinity });
    await run(f, boot([controller('root', '0')]));
    expect(f.factsOf('process.boot-failed')[0].data.error).toEqual({
      code: 'PodReadyTimeout',
      message: 'pod run-7/root was not Ready within 45 s (phase Running)',
    });
    expect(f.cluster.clock.since(Date.parse('2025-01-01T00:00:00Z'))).toBeGreaterThanOrEqual(
      45_000,
    );
  });
});

describe('BootHandler: refusals and failures', () => {
  it('refuses a name a running process of the session has: nothing is created, no fact', async () => {
    const f = fixture();
    await run(f, boot([spec('ru-01', '0.1.1')]), 'boot-1');
    const before = f.facts.length;
    expect(await run(f, boot([spec('ru-01', '0.1.1')]), 'boot-2')).toEqual([
      {
        path: 'processes[0].name',
        message: expect.stringMatching(/^"ru-01" is already running in session "run-7"/),
      },
    ]);
    expect(f.facts.length).toBe(before);
    expect(f.cluster.timeline(/create pod/)).toEqual(['+0s create pod run-7/ru-01']);
  });

  it.each<[string, number]>([
    ['one process: only its own name is read', 1],
    [`more than ${NAMED_READ_AT_MOST}: the whole session is read`, NAMED_READ_AT_MOST + 1],
  ])('refuses a running name whichever way the session is read (%s)', async (_how, n) => {
    const f = fixture();
    await run(f, boot([spec('ru-01', '0.1.1'), spec('ru-02', '0.1.2')]), 'boot-1');
    const others = Array.from({ length: n - 1 }, (_, i) => spec(`df-${i}`, `0.2.${i}`));
    const refusals = await run(f, boot([...others, spec('ru-02', '0.1.2')]), 'boot-2');
    expect(refusals).toEqual([
      {
        path: `processes[${n - 1}].name`,
        message: expect.stringMatching(/^"ru-02" is already running in session "run-7"/),
      },
    ]);
  });

  it('refuses a session whose namespace another user owns', async () => {
    const f = fixture();
    f.cluster.addNamespace(SESSION, { 'creator.drunc.daq': 'kpm', 'user.drunc.daq': 'bob' });
    expect(await run(f, boot())).toEqual([
      expect.objectContaining({ path: 'session', message: expect.stringContaining('bob') }),
    ]);
  });

  it('boots the same command again without creating anything twice, with the same fact ids', async () => {
    const f = fixture();
    await run(f, boot());
    const first = f.facts.map((e) => e.id);
    await run(f, boot());
    expect(f.facts.map((e) => e.id).sort()).toEqual([...first, ...first].sort());
    expect(f.cluster.timeline(/create pod/)).toHaveLength(TREE.length);
  });

  it("fails a process with the API server's reason and boots the others", async () => {
    const f = fixture();
    f.cluster.failNext('pods.create', { kind: 'forbidden', status: 403, reason: 'Forbidden' });
    await run(f, boot([spec('ru-01', '0.1.1'), spec('ru-02', '0.1.2')]));
    expect(f.factsOf('process.boot-failed').map((e) => e.data.error)).toEqual([
      {
        code: 'Forbidden',
        message: 'could not create pod run-7/ru-01: Forbidden says the API server',
      },
    ]);
    expect(outcomes(f)).toEqual(['ru-01 Forbidden', 'ru-02 booted']);
  });

  it('fails every process when no node is usable, naming each node and why', async () => {
    const f = fixture({ nodes: { 'node-1': 'cordoned', 'node-2': 'not-ready' } });
    await run(f, boot([spec('ru-01', '0.1.1')]));
    expect(f.factsOf('process.boot-failed').map((e) => e.data.error)).toEqual([
      {
        code: 'NoUsableNode',
        message: 'no node is Ready and schedulable: node-1 (cordoned), node-2 (not ready)',
      },
    ]);
  });

  it('all or nothing: refuses the whole boot when one process cannot land, creating nothing', async () => {
    const f = fixture({ nodes: { 'host-1': 'ready', 'host-2': 'cordoned' } });
    const on = (host: string) => ({ restriction: { allowedHosts: [host] } });
    const processes = [spec('ru-01', '0.1.1', on('host-1')), spec('ru-02', '0.1.2', on('host-2'))];
    const refused = await run(f, { ...boot(processes), allOrNothing: true });
    expect(refused).toEqual([
      {
        path: 'allOrNothing',
        message: 'the boot is all-or-nothing and 1 of 2 processes cannot land: nothing was created',
      },
      {
        path: 'processes[1]',
        message: '"ru-02" cannot land: no allowed host is Ready and schedulable: host-2 (cordoned)',
      },
    ]);
    expect(f.facts).toEqual([]);
    expect(f.cluster.timeline(/create/)).toEqual([]);
  });

  it('all or nothing: refuses readout processes past the hugepages their host_config asks on a host', async () => {
    const readout = { limits: { cpu: '4', memory: '8Gi', 'hugepages-1Gi': '2Gi' } };
    const f = fixture({
      nodes: { 'host-1': 'ready', 'host-2': 'ready' },
      allocatable: {
        'host-1': { cpu: '32', memory: '128Gi', 'hugepages-1Gi': '4Gi' },
        'host-2': { cpu: '32', memory: '128Gi', 'hugepages-1Gi': '16Gi' },
      },
      env: {
        KPM_CONFIG: configFile({
          podManagement: { hostConfigs: { 'host-1': readout, 'host-2': readout } },
        }),
      },
    });
    const on = (host: string) => ({ restriction: { allowedHosts: [host] } });
    const processes = [
      spec('runp-01', '0.1.1', on('host-1')),
      spec('runp-02', '0.1.2', on('host-1')),
      spec('runp-03', '0.1.3', on('host-1')),
      spec('runp-04', '0.1.4', on('host-2')),
    ];
    const refused = await run(f, { ...boot(processes), allOrNothing: true });
    expect(refused).toEqual([
      {
        path: 'allOrNothing',
        message: 'the boot is all-or-nothing and 1 of 4 processes cannot land: nothing was created',
      },
      {
        path: 'processes[2]',
        message:
          '"runp-03" cannot land: it does not fit on host-1: it requests hugepages-1Gi 2Gi where 0 is free (the node\'s allocatable less what its pods and this boot\'s earlier processes request)',
      },
    ]);
    expect(f.cluster.timeline(/create/)).toEqual([]);
    // Moved to the host with room, the same session boots whole.
    processes[2] = spec('runp-03', '0.1.3', on('host-2'));
    expect(await run(f, { ...boot(processes), allOrNothing: true }, 'boot-2')).toEqual([]);
    expect(outcomes(f)).toEqual([
      'runp-01 booted',
      'runp-02 booted',
      'runp-03 booted',
      'runp-04 booted',
    ]);
  });

  it('without all or nothing, the process that cannot land fails alone and the others boot', async () => {
    const f = fixture({ nodes: { 'host-1': 'ready', 'host-2': 'cordoned' } });
    const on = (host: string) => ({ restriction: { allowedHosts: [host] } });
    const processes = [spec('ru-01', '0.1.1', on('host-1')), spec('ru-02', '0.1.2', on('host-2'))];
    expect(await run(f, boot(processes))).toEqual([]);
    expect(outcomes(f)).toEqual(['ru-01 booted', 'ru-02 NodeNotUsable']);
  });

  it('takes the name of an ended process once the watcher has recorded it', async () => {
    const f = fixture();
    f.cluster.scripts.set('ru-01', { exitsAfterMs: 1_000, exitCode: 3 });
    await run(f, boot([spec('ru-01', '0.1.1')]), 'boot-1');
    await f.cluster.clock.sleep(5_000);
    f.cluster.scripts.delete('ru-01');
    await run(f, boot([spec('ru-01', '0.1.1')]), 'boot-2');
    expect(f.cluster.timeline(/pod run-7\/ru-01/)).toEqual([
      '+0s create pod run-7/ru-01',
      '+1s ready pod run-7/ru-01',
      '+1s exited pod run-7/ru-01 exit 3',
      '+1.1s recorded pod run-7/ru-01',
      '+5s delete pod run-7/ru-01 grace 0',
      '+5s gone pod run-7/ru-01',
      '+5s create pod run-7/ru-01',
    ]);
    expect(outcomes(f)).toEqual(['ru-01 booted', 'ru-01 booted']);
  });

  it('waits out the namespace a terminate left Terminating, then boots into a new one', async () => {
    const f = fixture();
    await run(f, boot([spec('ru-01', '0.1.1')]), 'boot-1');
    await f.cluster.clock.sleep(2_000);
    // The terminate returns once its pod has ended; the watcher releases the pod 100 ms later.
    await f.handlers.terminate.handle({ session: SESSION, user: USER }, f.context('terminate-1'));
    await run(f, boot([spec('ru-02', '0.1.2')]), 'boot-2');
    expect(f.cluster.timeline(/namespace|create pod|gone/)).toEqual([
      '+0s create namespace run-7',
      '+0s create pod run-7/ru-01',
      '+3s delete namespace run-7',
      '+3.1s gone pod run-7/ru-01',
      '+3.1s gone namespace run-7',
      '+3.1s create namespace run-7',
      '+3.1s create pod run-7/ru-02',
    ]);
    expect(outcomes(f)).toEqual(['ru-01 booted', 'ru-02 booted']);
  });

  it('fails the boot when the terminating namespace outlasts namespaceCleanupTimeoutSeconds', async () => {
    const f = fixture({ watcherDelayMs: undefined });
    await run(f, boot([spec('ru-01', '0.1.1')]), 'boot-1');
    await f.handlers.terminate.handle({ session: SESSION, user: USER }, f.context('terminate-1'));
    await run(f, boot([spec('ru-02', '0.1.2')]), 'boot-2');
    expect(f.factsOf('process.boot-failed').map((e) => e.data.error)).toEqual([
      { code: 'NamespaceTerminating', message: 'namespace run-7 is still terminating after 120 s' },
    ]);
  });

  it('refuses to free the name while the earlier pod is not recorded (no watcher runs)', async () => {
    const f = fixture({ watcherDelayMs: undefined });
    f.cluster.scripts.set('ru-01', { exitsAfterMs: 1_000, exitCode: 3 });
    await run(f, boot([spec('ru-01', '0.1.1')]), 'boot-1');
    await f.cluster.clock.sleep(5_000);
    await run(f, boot([spec('ru-01', '0.1.1')]), 'boot-2');
    expect(f.factsOf('process.boot-failed').map((e) => e.data.error)).toEqual([
      {
        code: 'PreviousPodNotGone',
        message: expect.stringMatching(/^the ended pod run-7\/ru-01 .* still there after 30 s/),
      },
    ]);
  });
});
