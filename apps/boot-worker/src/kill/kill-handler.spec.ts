import type { KillCommand, ProcessInstance, ProcessQuery } from '@kpm/contracts';
import {
  fixture,
  SESSION,
  spec,
  TREE,
  USER,
  type Fixture,
} from '../__fixtures__/boot-worker-fixture';
import type { PodScript } from '../__fixtures__/fake-cluster';
import { StopRequested } from '../commands/command-context';

/** A booted tree, every pod running, its history started afresh: the kill's times count from 0. */
async function booted(scripts: Record<string, PodScript> = {}) {
  const f = fixture();
  await f.handlers.boot.handle(
    { session: SESSION, user: USER, processes: TREE },
    f.context('boot-1'),
  );
  await f.cluster.clock.sleep(1_000);
  for (const [name, script] of Object.entries(scripts)) f.cluster.scripts.set(name, script);
  f.cluster.resetHistory();
  return f;
}

function uuidOf(f: Fixture, name: string): string {
  const { processes } = f.factsOf('boot.accepted')[0].data as {
    processes: { name: string; uuid: string }[];
  };
  return processes.find((p) => p.name === name)!.uuid;
}

/** The pod `name` was booted in, as its process.booted says. */
function podUidOf(f: Fixture, name: string): string {
  const booted = f.factsOf('process.booted').map((e) => e.data as { process: ProcessInstance });
  return booted.find((b) => b.process.description.metadata.name === name)!.process.podUid;
}

const kill = (query: ProcessQuery, extra: Partial<KillCommand> = {}): KillCommand => ({
  query,
  user: USER,
  ...extra,
});

function run(f: Fixture, command: KillCommand, signal?: AbortSignal) {
  return f.handlers.kill.handle(command, f.context('kill-1', SESSION, signal));
}

describe('Killer: drunc’s stages, each once the one before has ended', () => {
  it.each<[string, Record<string, PodScript>, Partial<KillCommand>, string[]]>([
    [
      'applications, segment, root, infrastructure: each stage when every pod of the last ended',
      { 'ru-02': { stopsAfterMs: 3_000 }, root: { stopsAfterMs: 2_000 } },
      {},
      [
        '+0s delete pod run-7/ru-01 grace 30',
        '+0s delete pod run-7/ru-02 grace 30',
        '+3s delete pod run-7/seg grace 30',
        '+4s delete pod run-7/root grace 30',
        '+6s delete pod run-7/local-connection-server grace 30',
      ],
    ],
    [
      "the command's grace period: the kubelet kills at it",
      { 'ru-01': { stopsAfterMs: Infinity } },
      { gracePeriodSeconds: 2 },
      [
        '+0s delete pod run-7/ru-01 grace 2',
        '+0s delete pod run-7/ru-02 grace 2',
        '+2s delete pod run-7/seg grace 2',
        '+3s delete pod run-7/root grace 2',
        '+4s delete pod run-7/local-connection-server grace 2',
      ],
    ],
    [
      'a pod outliving grace + margin (its node does not answer) is killed with grace 0',
      { 'ru-01': { unresponsive: true } },
      {},
      [
        '+0s delete pod run-7/ru-01 grace 30',
        '+0s delete pod run-7/ru-02 grace 30',
        '+35s delete pod run-7/ru-01 grace 0',
        '+35s delete pod run-7/seg grace 30',
        '+36s delete pod run-7/root grace 30',
        '+37s delete pod run-7/local-connection-server grace 30',
      ],
    ],
    [
      "past the command's timeout, the later stages are deleted in order without waiting",
      { 'ru-01': { stopsAfterMs: 20_000 }, seg: { stopsAfterMs: 20_000 } },
      { timeoutSeconds: 10 },
      [
        '+0s delete pod run-7/ru-01 grace 30',
        '+0s delete pod run-7/ru-02 grace 30',
        '+10s delete pod run-7/seg grace 30',
        '+10s delete pod run-7/root grace 30',
        '+10s delete pod run-7/local-connection-server grace 30',
      ],
    ],
  ])('%s', async (_, scripts, extra, deletes) => {
    const f = await booted(scripts);
    expect(await run(f, kill({ session: SESSION }, extra))).toEqual([]);
    expect(f.cluster.timeline(/delete pod/)).toEqual(deletes);
  });

  it('emits kill.accepted with the stages by uuid, the pod of each, and the timing the state service bounds it by', async () => {
    const f = await booted();
    await run(f, kill({ session: SESSION, names: ['^ru-', '^root$'] }, { gracePeriodSeconds: 2 }));
    const [accepted] = f.factsOf('kill.accepted');
    expect(accepted.data).toEqual({
      commandId: 'kill-1',
      kind: 'kill',
      session: SESSION,
      stages: [[uuidOf(f, 'ru-01'), uuidOf(f, 'ru-02')], [uuidOf(f, 'root')]],
      podUids: Object.fromEntries(
        ['ru-01', 'ru-02', 'root'].map((n) => [uuidOf(f, n), podUidOf(f, n)]),
      ),
      gracePeriodSeconds: 2,
      timeoutSeconds: 2 * (2 + 5 + 15),
      progressTimeoutSeconds: 2 + 5 + 15,
    });
  });

  it('gives up when the consumer stops, so the command is redelivered', async () => {
    const f = await booted({ 'ru-01': { stopsAfterMs: 10_000 } });
    const stop = new AbortController();
    f.cluster.clock.schedule(1_000, () => stop.abort());
    await expect(run(f, kill({ session: SESSION }), stop.signal)).rejects.toBeInstanceOf(
      StopRequested,
    );
    expect(f.cluster.timeline(/delete pod/)).toHaveLength(2);
  });
});

describe('KillHandler: what a kill may select', () => {
  it.each<[string, ProcessQuery, string, unknown[]]>([
    ['an empty query', {}, USER, [expect.objectContaining({ path: 'query' })]],
    [
      "another user's session",
      { session: SESSION },
      'mallory',
      [{ path: 'query', message: 'session "run-7" belongs to user "alice", not "mallory"' }],
    ],
    ['nothing: accepted with no stages', { session: SESSION, names: ['^nope$'] }, USER, []],
  ])('%s', async (_, query, user, refusals) => {
    const f = await booted();
    expect(await run(f, { query, user })).toEqual(refusals);
    expect(f.cluster.timeline(/delete pod/)).toEqual([]);
    const stages = f.factsOf('kill.accepted').map((e) => e.data.stages);
    expect(stages).toEqual(refusals.length > 0 ? [] : [[]]);
  });

  it('refuses a query selecting processes of another session than its subject', async () => {
    const f = await booted();
    await f.handlers.boot.handle(
      { session: 'run-8', user: USER, processes: [spec('ru-01', '0.1.1')] },
      f.context('boot-2', 'run-8'),
    );
    expect(await run(f, kill({ names: ['^ru-01$'] }))).toEqual([
      expect.objectContaining({ path: 'query', message: expect.stringContaining('ru-01 (run-8)') }),
    ]);
  });

  it("lets an operator kill another user's processes", async () => {
    const operator = fixture({ env: { KPM_OPERATOR_USERS: 'shifter' } });
    await operator.handlers.boot.handle(
      { session: SESSION, user: USER, processes: [spec('ru-01', '0.1.1')] },
      operator.context('boot-1'),
    );
    expect(
      await operator.handlers.kill.handle(
        { query: { session: SESSION }, user: 'shifter' },
        operator.context('kill-1'),
      ),
    ).toEqual([]);
    expect(operator.cluster.timeline(/delete pod/)).toEqual([
      '+0s delete pod run-7/ru-01 grace 30',
    ]);
  });
});
