import type { TerminateCommand } from '@kpm/contracts';
import { fixture, SESSION, TREE, USER, type Fixture } from '../__fixtures__/boot-worker-fixture';

async function booted(): Promise<Fixture> {
  const f = fixture();
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
