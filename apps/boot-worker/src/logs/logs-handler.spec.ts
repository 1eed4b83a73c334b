import { eventId, type LogsCommand } from '@kpm/contracts';
import { fixture, SESSION, spec, USER, type Fixture } from '../__fixtures__/boot-worker-fixture';

async function booted(): Promise<Fixture> {
  const f = fixture({ env: { KPM_OPERATOR_USERS: 'shifter' } });
  f.cluster.scripts.set('ru-01', { logs: ['one', 'two', 'three'] });
  await f.handlers.boot.handle(
    { session: SESSION, user: USER, processes: [spec('ru-01', '0.1.1'), spec('ru-02', '0.1.2')] },
    f.context('boot-1'),
  );
  return f;
}

const logs = (extra: Partial<LogsCommand> = {}): LogsCommand => ({
  query: { session: SESSION, names: ['^ru-01$'] },
  user: USER,
  ...extra,
});

describe('LogsHandler', () => {
  it.each<[string, Partial<LogsCommand>, string[]]>([
    ['the last tailLines lines', { tailLines: 2 }, ['two', 'three']],
    ["drunc's default of the last 100", {}, ['one', 'two', 'three']],
    ['for an operator, of any session', { user: 'shifter' }, ['one', 'two', 'three']],
  ])('answers %s in logs.fetched', async (_, extra, lines) => {
    const f = await booted();
    expect(await f.handlers.logs.handle(logs(extra), f.context('logs-1'))).toEqual([]);
    const [fetched] = f.factsOf('logs.fetched');
    expect(fetched.data).toEqual({ commandId: 'logs-1', uuid: expect.any(String), lines });
    expect(fetched.id).toBe(eventId('logs.fetched', 'logs-1'));
  });

  it('says in its lines why the node could not serve them, as drunc does', async () => {
    const f = await booted();
    f.cluster.failNext('pods.logs', { kind: 'other', status: 502, reason: 'BadGateway' });
    await f.handlers.logs.handle(logs(), f.context('logs-1'));
    expect(f.factsOf('logs.fetched')[0].data.lines).toEqual([
      'Could not retrieve logs of ru-01 (run-7): BadGateway: BadGateway says the API server',
    ]);
  });

  it.each<[string, Partial<LogsCommand>, string]>([
    ['several processes', { query: { session: SESSION, names: ['^ru-'] } }, 'selects 2 processes'],
    ["another user's process", { user: 'mallory' }, 'belongs to user "alice", not "mallory"'],
  ])('refuses %s', async (_, extra, message) => {
    const f = await booted();
    expect(await f.handlers.logs.handle(logs(extra), f.context('logs-1'))).toEqual([
      { path: 'query', message: expect.stringContaining(message) },
    ]);
    expect(f.factsOf('logs.fetched')).toEqual([]);
  });
});
