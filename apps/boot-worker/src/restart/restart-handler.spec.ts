import type { ProcessQuery, RestartCommand } from '@kpm/contracts';
import {
  controller,
  fixture,
  SESSION,
  spec,
  USER,
  type Fixture,
} from '../__fixtures__/boot-worker-fixture';
import { restartRecord } from './restart-record';

async function booted(env?: Record<string, string>): Promise<Fixture> {
  const f = fixture({ env });
  await f.handlers.boot.handle(
    { session: SESSION, user: USER, processes: [spec('ru-01', '0.1.1'), spec('ru-02', '0.1.2')] },
    f.context('boot-1'),
  );
  await f.cluster.clock.sleep(1_000);
  f.cluster.resetHistory();
  return f;
}

const restart = (
  query: ProcessQuery = { session: SESSION, names: ['^ru-01$'] },
): RestartCommand => ({
  query,
  user: USER,
});

function run(f: Fixture, command = restart(), id = 'restart-1') {
  return f.handlers.restart.handle(command, f.context(id));
}

function uuidOf(f: Fixture, name: string): string {
  return f.cluster.pod(SESSION, name)!.metadata!.labels!['uuid.drunc.daq'];
}

describe('RestartHandler', () => {
  it('kills the process, waits until the watcher released its pod, boots it again with the same uuid', async () => {
    const f = await booted();
    const uuid = uuidOf(f, 'ru-01');
    expect(await run(f)).toEqual([]);
    expect(f.cluster.timeline(/ru-01|record/)).toEqual([
      '+0s create record run-7/kpm-restart-' + uuid,
      '+0s delete pod run-7/ru-01 grace 30',
      '+1s stopped pod run-7/ru-01 exit 0',
      '+1.1s recorded pod run-7/ru-01',
      '+1.1s gone pod run-7/ru-01',
      '+1.1s create pod run-7/ru-01',
      '+1.1s create service run-7/ru-01',
      '+1.1s delete record run-7/kpm-restart-' + uuid,
    ]);
    expect(uuidOf(f, 'ru-01')).toBe(uuid);
    expect(f.factsOf('kill.accepted').map((e) => [e.data.kind, e.data.stages])).toEqual([
      ['restart', [[uuid]]],
    ]);
    expect(
      f.factsOf('process.booted').map((e) => (e.data.process as { uuid: string }).uuid),
    ).toEqual([expect.any(String), expect.any(String), uuid]);
  });

  it('emits the same facts again on a redelivery after it restarted, and touches nothing', async () => {
    const f = await booted();
    await run(f);
    const ids = f.facts.map((e) => e.id);
    f.cluster.resetHistory();
    await run(f);
    expect(f.cluster.timeline(/pod/)).toEqual([]);
    const again = f.facts.slice(ids.length).map((e) => e.id);
    expect(again).toEqual(ids.slice(-2));
  });

  it('resumes from its record when a crash came after the old pod was gone', async () => {
    const f = await booted();
    const uuid = uuidOf(f, 'ru-01');
    const old = f.cluster.pod(SESSION, 'ru-01')!;
    const spec = JSON.parse(old.metadata!.annotations!['drunc.daq/process-spec']);
    const record = restartRecord(f.cluster.labels, 'restart-1', {
      uuid,
      session: SESSION,
      user: USER,
      spec,
    });
    await f.cluster.restartRecords.create(record);
    await f.cluster.pods.delete(old, 0);
    await f.cluster.clock.sleep(1_000);
    f.cluster.resetHistory();
    expect(await run(f, restart({ session: SESSION, names: ['^gone-already$'] }))).toEqual([]);
    expect(f.cluster.timeline(/ru-01|record/)).toEqual([
      '+0s create pod run-7/ru-01',
      '+0s create service run-7/ru-01',
      '+0s delete record run-7/kpm-restart-' + uuid,
    ]);
    expect(f.factsOf('kill.accepted').map((e) => e.data.stages)).toEqual([[[uuid]]]);
  });

  it('ignores a record in a namespace of another owner: it may be forged', async () => {
    const f = await booted();
    f.cluster.addNamespace('run-8', { 'creator.drunc.daq': 'kpm', 'user.drunc.daq': 'mallory' });
    const forged = restartRecord(f.cluster.labels, 'restart-1', {
      uuid: 'u-forged',
      session: 'run-8',
      user: USER,
      spec: { ...spec('evil'), uuid: 'u-forged' },
    });
    await f.cluster.restartRecords.create(forged);
    expect(await run(f, restart({ session: SESSION, names: ['^nothing$'] }))).toEqual([
      { path: 'query', message: 'selects no process to restart' },
    ]);
  });

  it('fails the boot with PreviousPodNotGone when no watcher records the old pod in restartCleanupSeconds', async () => {
    const f = await booted();
    f.cluster.watcherDelayMs = undefined;
    await run(f);
    expect(f.factsOf('process.boot-failed').map((e) => e.data.error)).toEqual([
      { code: 'PreviousPodNotGone', message: expect.stringContaining('still there after 30 s') },
    ]);
  });

  it('refuses a query selecting none, creating nothing', async () => {
    const f = await booted();
    expect(await run(f, restart({ session: SESSION, names: ['^nope$'] }))).toEqual([
      { path: 'query', message: 'selects no process to restart' },
    ]);
    expect(f.cluster.timeline()).toEqual([]);
  });

  it('restarts every process the query selects: one kill in stages, then each booted again', async () => {
    const f = await booted();
    const [ru01, ru02] = [uuidOf(f, 'ru-01'), uuidOf(f, 'ru-02')];
    expect(await run(f, restart({ session: SESSION, names: ['^ru-'] }))).toEqual([]);
    expect(f.factsOf('kill.accepted').map((e) => [e.data.kind, e.data.stages])).toEqual([
      ['restart', [[ru01, ru02]]],
    ]);
    const rebooted = f.factsOf('process.booted').slice(2);
    expect(rebooted.map((e) => (e.data.process as { uuid: string }).uuid).sort()).toEqual(
      [ru01, ru02].sort(),
    );
    expect(f.cluster.timeline(/create pod|gone pod/)).toEqual([
      '+1.1s gone pod run-7/ru-01',
      '+1.1s gone pod run-7/ru-02',
      '+1.1s create pod run-7/ru-01',
      '+1.1s create pod run-7/ru-02',
    ]);
    expect(f.cluster.allRecords()).toEqual([]);
  });

  it('kills a segment controller after its applications and boots it again before them', async () => {
    const f = fixture();
    await f.handlers.boot.handle(
      {
        session: SESSION,
        user: USER,
        processes: [controller('seg', '0.1'), spec('ru-01', '0.1.1')],
      },
      f.context('boot-1'),
    );
    await f.cluster.clock.sleep(1_000);
    f.cluster.resetHistory();
    expect(await run(f, restart({ session: SESSION, names: ['^(seg|ru-01)$'] }))).toEqual([]);
    expect(f.cluster.timeline(/delete pod|create pod/)).toEqual([
      '+0s delete pod run-7/ru-01 grace 30',
      '+1s delete pod run-7/seg grace 30',
      '+2.1s create pod run-7/seg',
      '+2.1s create pod run-7/ru-01',
    ]);
  });

  it('emits the same facts again when redelivered after restarting several', async () => {
    const f = await booted();
    await run(f, restart({ session: SESSION, names: ['^ru-'] }));
    const ids = f.facts.map((e) => e.id);
    f.cluster.resetHistory();
    await run(f, restart({ session: SESSION, names: ['^ru-'] }));
    expect(f.cluster.timeline(/pod/)).toEqual([]);
    expect(f.facts.slice(ids.length).map((e) => e.id)).toEqual(ids.slice(-3));
  });

  it("refuses a stored spec today's pod policy refuses", async () => {
    const f = fixture({ env: { KPM_ALLOWED_IMAGES: 'ghcr.io/dune-daq/*' } });
    f.cluster.addNamespace(SESSION, { 'creator.drunc.daq': 'kpm', 'user.drunc.daq': USER });
    const uuid = '0b0e1c9a-4c5e-4a8a-9d55-8f1f0d7a2b3c';
    const stored = { ...spec('ru-01', '0.1.1'), image: 'example.org/other:1', uuid };
    f.cluster.addPod({
      metadata: {
        name: 'ru-01',
        namespace: SESSION,
        labels: {
          'creator.drunc.daq': 'kpm',
          'uuid.drunc.daq': uuid,
          'user.drunc.daq': USER,
          'session.drunc.daq': SESSION,
        },
        annotations: { 'drunc.daq/process-spec': JSON.stringify(stored) },
      },
    });
    expect(await run(f)).toEqual([
      {
        path: 'query',
        message: expect.stringMatching(
          /whose stored spec the pod policy refuses now: spec\.image /,
        ),
      },
    ]);
  });

  it('waits for a restarted root controller to be Ready, as a boot does', async () => {
    const f = fixture();
    await f.handlers.boot.handle(
      { session: SESSION, user: USER, processes: [controller('root', '0')] },
      f.context('boot-1'),
    );
    f.cluster.scripts.set('root', { readyAfterMs: Infinity });
    f.cluster.resetHistory();
    await run(f, restart({ session: SESSION, names: ['^root$'] }));
    expect(f.factsOf('process.boot-failed').map((e) => e.data.error)).toEqual([
      { code: 'PodReadyTimeout', message: expect.stringContaining('not Ready within 60 s') },
    ]);
  });
});
