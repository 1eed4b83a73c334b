import type { TerminateCommand } from '@kpm/contracts';
import { fixture, SESSION, TREE, USER, type Fixture } from '../__fixtures__/boot-worker-fixture';

async function booted(options: Parameters<typeof fixture>[0] = {}): Promise<Fixture> {
  const f = fixture(options);
  await f.handlers.boot.handle(
    { session: SESSION, user: USER, processes: TREE },
    f.context('boot-1'),
  );
  await f.cluster.clock.sleep(1_000);
  f.cluster.resetHistory();
  return f;
}

const terminate = (extra: Partial<TerminateCommand> = {}): TerminateCommand => ({
  session: SESSION,
  user: USER,
  ...extra,
});

describe('TerminateHandler', () => {
  it('kills the whole session in stages, then deletes its namespace, which goes with its last pod', async () => {
    const f = await booted();
    expect(await f.handlers.terminate.handle(terminate(), f.context('term-1'))).toEqual([]);
    await f.cluster.clock.sleep(1_000);
    expect(f.cluster.timeline(/delete|namespace/)).toEqual([
      '+0s delete pod run-7/ru-01 grace 30',
      '+0s delete pod run-7/ru-02 grace 30',
      '+1s delete pod run-7/seg grace 30',
      '+2s delete pod run-7/root grace 30',
      '+3s delete pod run-7/local-connection-server grace 30',
      '+4s delete namespace run-7',
      '+4.1s gone namespace run-7',
    ]);
    expect(f.factsOf('kill.accepted').map((e) => [e.data.kind, e.data.stages])).toEqual([
      ['terminate', [expect.any(Array), expect.any(Array), expect.any(Array), expect.any(Array)]],
    ]);
  });

  it("ends inside the caller's deadline when every process ignores SIGTERM", async () => {
    const f = await booted({ defaultScript: { stopsAfterMs: Infinity } });
    const start = f.cluster.clock.now();
    await f.handlers.terminate.handle(terminate({ deadlineSeconds: 53 }), f.context('term-1'));
    const tookMs = f.cluster.clock.now() - start;
    // 4 stages share 53 s: 13 s each, 3 s escalation margin, 3 s after a forced kill, grace 7 s.
    expect(f.cluster.timeline(/delete pod/)).toEqual([
      '+0s delete pod run-7/ru-01 grace 7',
      '+0s delete pod run-7/ru-02 grace 7',
      '+7s delete pod run-7/seg grace 7',
      '+14s delete pod run-7/root grace 7',
      '+21s delete pod run-7/local-connection-server grace 7',
    ]);
    expect(tookMs).toBeLessThanOrEqual(53_000);
    expect(
      f.factsOf('kill.accepted').map((e) => [e.data.gracePeriodSeconds, e.data.timeoutSeconds]),
    ).toEqual([[7, 53]]);
  });

  it('without a deadline gives each stage the full grace, as drunc does', async () => {
    const f = await booted({ defaultScript: { stopsAfterMs: Infinity } });
    const start = f.cluster.clock.now();
    await f.handlers.terminate.handle(terminate(), f.context('term-1'));
    expect(f.cluster.clock.now() - start).toBeGreaterThanOrEqual(4 * 30_000);
  });

  it('keeps the namespace when told', async () => {
    const f = await booted();
    await f.handlers.terminate.handle(terminate({ keepNamespace: true }), f.context('term-1'));
    await f.cluster.clock.sleep(1_000);
    expect(f.cluster.timeline(/namespace/)).toEqual([]);
    expect(f.cluster.namespace(SESSION)).toBeDefined();
    expect(f.cluster.allPods()).toEqual([]);
  });

  it('accepts a session without a namespace with no stages, so a redelivery ends the same way', async () => {
    const f = fixture();
    expect(await f.handlers.terminate.handle(terminate(), f.context('term-1'))).toEqual([]);
    expect(f.factsOf('kill.accepted').map((e) => e.data.stages)).toEqual([[]]);
    expect(f.cluster.timeline()).toEqual([]);
  });

  it.each<[string, Record<string, string>, string]>([
    [
      'another user owns the session',
      { 'creator.drunc.daq': 'kpm', 'user.drunc.daq': 'bob' },
      'bob',
    ],
    ['kpm did not create the namespace', { 'user.drunc.daq': USER }, 'not created by kpm'],
  ])('refuses when %s', async (_, labels, why) => {
    const f = fixture();
    f.cluster.addNamespace(SESSION, labels);
    expect(await f.handlers.terminate.handle(terminate(), f.context('term-1'))).toEqual([
      expect.objectContaining({ path: 'session', message: expect.stringContaining(why) }),
    ]);
    expect(f.facts).toEqual([]);
  });
});
