/**
 * Liveness against the cluster, in drunc's words, through the whole system (boot-worker, watcher,
 * state) on the local stack: a pod deleted — its finalizer removed by someone else — while no
 * watcher ran still ends DEAD `PodDeleted` in the process table within one reconcile period, and a
 * process that exits 0 ends `GracefulShutdown`; the broadcasts carry the same reasons.
 */
import { eventually } from '@kpm/common';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { BroadcastEventType, type KpmEvent, type ProcessInstance } from '@kpm/contracts';
import { connectProcessManager, type ProcessManagerClient } from '@kpm/client';
import { podNameOf } from '@kpm/kube';
import { KpmTrio } from '../support/kpm-trio';
import { stackEnv } from '../support/stack-env';

jest.setTimeout(240_000);

const RECONCILE_PERIOD_SECONDS = 10;

const app = (name: string, treeId: string, annotations: Record<string, string> = {}) => ({
  name,
  treeId,
  executableAndArguments: [{ exec: 'daq_application', args: ['--name', name] }],
  annotations,
});

/** A drunc controller: the same process running drunc-controller (its role is by executable). */
const controller = (...args: Parameters<typeof app>) => ({
  ...app(...args),
  executableAndArguments: [{ exec: 'drunc-controller', args: ['--name', args[0]] }],
});

let h: KpmTrio;
let client: ProcessManagerClient;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kpm-liveness-'));
  const config = join(dir, 'watcher.yaml');
  writeFileSync(config, `watcher:\n  reconcilePeriodSeconds: ${RECONCILE_PERIOD_SECONDS}\n`);
  h = await KpmTrio.start(
    'liveness',
    { KPM_ALLOWED_IMAGES: 'kpm.invalid/*', KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0' },
    { KPM_CONFIG: config },
  );
  client = connectProcessManager({ brokers: stackEnv().brokers, topicPrefix: h.prefix });
}, 180_000);

afterAll(async () => {
  await client?.close();
  await h?.close();
}, 180_000);

function collect(stream: AsyncIterable<KpmEvent>): KpmEvent[] {
  const seen: KpmEvent[] = [];
  void (async () => {
    for await (const event of stream) seen.push(event);
  })();
  return seen;
}

/** Asks the state service until `row` satisfies `done`; resolves with the row. */
async function rowOf(
  session: string,
  name: string,
  done: (row: ProcessInstance) => boolean,
  timeoutMs: number,
): Promise<ProcessInstance> {
  return eventually(
    async () => {
      const rows = await client.ps({ session, names: [`^${name}$`] });
      const row = rows.find((r) => r.description.metadata.name === name);
      return row && done(row) ? row : false;
    },
    { what: `${session}.${name} as expected`, timeoutMs, everyMs: 250 },
  );
}

const statusBroadcasts = (seen: KpmEvent[]) =>
  seen.flatMap((e) =>
    e.type === BroadcastEventType.broadcast &&
    (e.data as { broadcastType: string }).broadcastType === 'SUBPROCESS_STATUS_UPDATE'
      ? [e.data as { text: string; data?: { name?: string; reason?: string } }]
      : [],
  );

it('ends a pod deleted while no watcher ran DEAD PodDeleted within one reconcile period', async () => {
  const session = h.session('vanish');
  const stream = client.events({ session });
  await stream.ready();
  const seen = collect(stream);
  const boot = await client.boot(
    { session, user: 'alice', processes: [controller('root', '0'), app('ru-01', '0.1.1')] },
    { wait: true },
  );
  expect(boot.completion?.status).toBe('succeeded');
  const ru01 = boot.completion!.processes.find((p) => p.description.metadata.name === 'ru-01')!;

  let watcherBack = 0;
  await h.withoutWatcher(async () => {
    // Someone else removes the termination-record finalizer and deletes the pod: nothing is left
    // in the cluster for a watcher to see.
    const core = h.harness.core;
    await core.patchNamespacedPod(
      { namespace: ru01.namespace, name: ru01.podName, body: { metadata: { finalizers: null } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await core.deleteNamespacedPod({
      namespace: ru01.namespace,
      name: ru01.podName,
      gracePeriodSeconds: 0,
    });
    await h.harness.until(
      () => core.listNamespacedPod({ namespace: ru01.namespace }),
      (list) => !list.items.some((pod) => pod.metadata?.uid === ru01.podUid),
    );
    watcherBack = Date.now();
  });

  const dead = await rowOf(
    session,
    'ru-01',
    (row) => row.statusCode === 'DEAD',
    RECONCILE_PERIOD_SECONDS * 1000,
  );
  expect(Date.now() - watcherBack).toBeLessThan(RECONCILE_PERIOD_SECONDS * 1000);
  expect(dead).toMatchObject({ podUid: ru01.podUid, returnCode: -1, reason: 'PodDeleted' });
  expect((await rowOf(session, 'root', () => true, 10_000)).statusCode).toBe('RUNNING');
  await eventually(
    () =>
      statusBroadcasts(seen).some(
        (b) => b.data?.name === 'ru-01' && b.data.reason === 'PodDeleted',
      ),
    { what: 'the PodDeleted broadcast of ru-01', timeoutMs: 60_000 },
  );
  expect(statusBroadcasts(seen).find((b) => b.data?.name === 'ru-01')!.text).toMatch(
    /Reason: PodDeleted$/,
  );
  await client.terminate({ session, user: 'alice' }, { wait: true });
});

it('ends a process that exits 0 DEAD GracefulShutdown, as drunc words it', async () => {
  const session = h.session('graceful');
  const stream = client.events({ session });
  await stream.ready();
  const seen = collect(stream);
  const boot = await client.boot(
    {
      session,
      user: 'alice',
      processes: [
        controller('root', '0'),
        app('ru-01', '0.1.1', { 'sim.kpm.daq/exit-code': '0', 'sim.kpm.daq/run-ms': '500' }),
      ],
    },
    { wait: true },
  );
  expect(boot.completion?.status).toBe('succeeded');
  const dead = await rowOf(session, 'ru-01', (row) => row.statusCode === 'DEAD', 60_000);
  expect(dead).toMatchObject({ returnCode: 0, reason: 'GracefulShutdown' });
  await eventually(
    () =>
      statusBroadcasts(seen).some(
        (b) => b.data?.name === 'ru-01' && b.data.reason === 'GracefulShutdown',
      ),
    { what: 'the GracefulShutdown broadcast of ru-01', timeoutMs: 60_000 },
  );
  await client.terminate({ session, user: 'alice' }, { wait: true });
});

it("broadcasts drunc's DRUNC_EXCEPTION_RAISED for a refused command", async () => {
  const session = h.session('refused');
  const stream = client.events({ session });
  await stream.ready();
  const seen = collect(stream);
  // Two names whose pods would share a name: the boot-worker refuses the boot.
  const twins = [app('dummy_boot_0', '0.1.1'), app(podNameOf('dummy_boot_0'), '0.1.2')];
  await expect(
    client.boot({ session, user: 'alice', processes: twins }, { wait: true }),
  ).rejects.toThrow(/was rejected: processes\[1\]\.name: \S+ would name its pod/);
  const exceptionOf = () =>
    seen.find(
      (e) =>
        e.type === BroadcastEventType.broadcast &&
        (e.data as { broadcastType: string }).broadcastType === 'DRUNC_EXCEPTION_RAISED',
    );
  await eventually(() => exceptionOf() !== undefined, {
    what: 'the DRUNC_EXCEPTION_RAISED broadcast',
    timeoutMs: 60_000,
  });
  expect((exceptionOf()!.data as { text: string }).text).toMatch(
    /^'DruncCommandException' exception thrown: boot \S+ rejected: /,
  );
});
