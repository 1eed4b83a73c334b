import { status } from '@grpc/grpc-js';
import { CommandFailedError, type CommandResult, type Query } from '@kpm/client';
import type { CommandCompleted, ProcessInstance } from '@kpm/contracts';
import { CommandRunner } from './calls/command-runner';
import type { CommandLookup } from './calls/retry-rule';
import { DruncProcessManager, type KpmCommands } from './drunc-process-manager';
import { ResponseFlag, StatusCode, type ProcessQuery } from './wire/drunc-messages';

const instance = (uuid: string, session: string, statusCode: 'RUNNING' | 'DEAD' = 'RUNNING') =>
  ({
    uuid,
    description: {
      metadata: { user: 'alice', session, name: uuid },
      env: {},
      executableAndArguments: [{ exec: 'x' }],
    },
    restriction: {},
    statusCode,
    ...(statusCode === 'DEAD' ? { returnCode: 143 } : {}),
    namespace: session,
    podName: uuid,
    podUid: `pod-${uuid}`,
    role: 'application',
    bootedAt: '2026-01-01T00:00:00Z',
  }) as ProcessInstance;

const completion = (
  commandId: string,
  processes: ProcessInstance[],
  s: CommandCompleted['status'] = 'succeeded',
) =>
  ({
    commandId,
    commandType: 'x',
    session: 's',
    status: s,
    processes,
    completedAt: new Date().toISOString(),
    durationMs: 1,
  }) as CommandCompleted;

/** kpm as a table of processes; every command is recorded with its id. */
class FakeKpm implements KpmCommands {
  readonly sent: Array<{ type: string; commandId?: string; data: unknown }> = [];
  constructor(public table: ProcessInstance[]) {}

  private result(
    type: string,
    commandId: string | undefined,
    processes: ProcessInstance[],
  ): Promise<CommandResult> {
    return Promise.resolve({
      commandId: commandId!,
      type,
      session: 's',
      completion: completion(commandId!, processes),
    } as never);
  }
  private select(q: Query) {
    return this.table.filter(
      (p) =>
        (!q.session || p.description.metadata.session === q.session) &&
        (!q.user || p.description.metadata.user === q.user) &&
        (!q.uuids?.length || q.uuids.includes(p.uuid)) &&
        (!q.names?.length || q.names.some((n) => new RegExp(n).test(p.description.metadata.name))),
    );
  }
  boot: KpmCommands['boot'] = (data, o) => (
    this.sent.push({ type: 'boot', commandId: o?.commandId, data }),
    this.result('boot', o?.commandId, [])
  );
  kill: KpmCommands['kill'] = (data, o) => {
    this.sent.push({ type: 'kill', commandId: o?.commandId, data });
    const killed = this.select(data.query).map((p): ProcessInstance => ({
      ...p,
      statusCode: 'DEAD',
      returnCode: 143,
    }));
    this.table = this.table.map((p) => killed.find((k) => k.uuid === p.uuid) ?? p);
    return this.result('kill', o?.commandId, killed);
  };
  terminate: KpmCommands['terminate'] = (data, o) => {
    this.sent.push({ type: 'terminate', commandId: o?.commandId, data });
    return this.kill({ query: { session: data.session }, user: data.user }, o);
  };
  restart: KpmCommands['restart'] = (q, o) => (
    this.sent.push({ type: 'restart', commandId: o?.commandId, data: q }),
    this.result('restart', o?.commandId, this.select(q))
  );
  flush: KpmCommands['flush'] = (q, o) => {
    this.sent.push({ type: 'flush', commandId: o?.commandId, data: q });
    const gone = this.select(q).filter((p) => p.statusCode === 'DEAD');
    this.table = this.table.filter((p) => !gone.includes(p));
    return this.result('flush', o?.commandId, gone);
  };
  ps: KpmCommands['ps'] = (q = {}) => Promise.resolve(this.select(q));
  logs: KpmCommands['logs'] = (q) => {
    const [one, two] = this.select(q);
    if (!one || two) return Promise.reject(new CommandFailedError(completion('l', [], 'rejected')));
    return Promise.resolve([{ uuid: one.uuid, lines: ['hello'] }]);
  };
}

const nobodyAnswered = {
  command: (): Promise<CommandLookup> => Promise.resolve({ state: 'unknown' }),
};
const token = { token: 't', user_name: 'alice' };
const q = (patch: Partial<ProcessQuery>): ProcessQuery => ({
  token,
  uuids: [],
  names: [],
  user: '',
  session: '',
  ...patch,
});
const soon = () => Date.now() + 10_000;

function gateway(table: ProcessInstance[]) {
  const kpm = new FakeKpm(table);
  const runner = new CommandRunner(nobodyAnswered, { retryWindowMs: 300_000, viewPollMs: 1_000 });
  return { kpm, pm: new DruncProcessManager(kpm, runner, { name: 'kpm', endpoint: 'grpc://h:1' }) };
}

describe('DruncProcessManager', () => {
  it('kill answers the killed processes DEAD and flushes them, as drunc forgets what it killed', async () => {
    const { kpm, pm } = gateway([instance('a', 'run-1'), instance('b', 'run-1')]);
    const answer = await pm.kill(q({ names: ['^a$'], session: 'run-1' }), soon());
    expect(answer.values.map((v) => [v.uuid.uuid, v.status_code, v.return_code])).toEqual([
      ['a', StatusCode.DEAD, 143],
    ]);
    expect(kpm.sent.map((s) => s.type)).toEqual(['kill', 'flush']);
    expect(kpm.table.map((p) => p.uuid)).toEqual(['b']);
  });

  it("kill and terminate ask kpm to end inside drunc's deadline, less room for the answer", async () => {
    const { kpm, pm } = gateway([instance('a', 'run-1'), instance('b', 'run-2')]);
    const drunc60s = () => Date.now() + 59_000; // drunc's 60 s less the gateway's margin
    await pm.kill(q({ names: ['^a$'], session: 'run-1' }), drunc60s());
    await pm.terminate({ token }, drunc60s());
    // (the fake's terminate kills through its own kill, which carries no deadline)
    const budgets = kpm.sent
      .map((s) => [s.type, (s.data as { deadlineSeconds?: number }).deadlineSeconds])
      .filter(([, seconds]) => seconds !== undefined);
    expect(budgets).toEqual([
      ['kill', expect.any(Number)],
      ['terminate', expect.any(Number)],
    ]);
    for (const [, seconds] of budgets) expect(seconds).toBeGreaterThanOrEqual(52);
    for (const [, seconds] of budgets) expect(seconds).toBeLessThanOrEqual(53);
  });

  it('kill refuses an empty query before anything is sent', async () => {
    const { kpm, pm } = gateway([instance('a', 'run-1')]);
    await expect(pm.kill(q({}), soon())).rejects.toMatchObject({
      rich: { code: status.INVALID_ARGUMENT },
    });
    expect(kpm.sent).toEqual([]);
  });

  it("terminate ends every session of the calling user, each with kpm's terminate", async () => {
    const bob = {
      ...instance('c', 'run-3'),
      description: {
        ...instance('c', 'run-3').description,
        metadata: { user: 'bob', session: 'run-3', name: 'c' },
      },
    } as ProcessInstance;
    const { kpm, pm } = gateway([instance('a', 'run-1'), instance('b', 'run-2'), bob]);
    const answer = await pm.terminate({ token }, soon());
    expect(answer.values.map((v) => v.uuid.uuid).sort()).toEqual(['a', 'b']);
    expect(
      kpm.sent
        .filter((s) => s.type === 'terminate')
        .map((s) => (s.data as { session: string }).session),
    ).toEqual(['run-1', 'run-2']);
    expect(kpm.table.map((p) => p.uuid)).toEqual(['c']);
  });

  it('terminate refuses an Any drunc never sends there, naming data', async () => {
    const { kpm, pm } = gateway([instance('a', 'run-1')]);
    const data = { type_url: 'type.googleapis.com/junk', value: Buffer.from([1, 2]) };
    await expect(pm.terminate({ token, data }, soon())).rejects.toMatchObject({
      rich: { code: status.INVALID_ARGUMENT, violations: [{ field: 'data' }] },
    });
    expect(kpm.sent).toEqual([]);
  });

  it("flush forgets the caller's dead processes, one kpm flush per session", async () => {
    const { kpm, pm } = gateway([
      instance('a', 'run-1', 'DEAD'),
      instance('b', 'run-2', 'DEAD'),
      instance('c', 'run-2'),
    ]);
    const answer = await pm.flush(q({ names: ['.*'] }), soon());
    expect(answer.values.map((v) => v.uuid.uuid).sort()).toEqual(['a', 'b']);
    expect(kpm.sent.map((s) => (s.data as Query).session)).toEqual(['run-1', 'run-2']);
  });

  it("logs answers LogLines, and a query that is not one process is drunc's BadQuery answer", async () => {
    const { pm } = gateway([instance('a', 'run-1'), instance('b', 'run-1')]);
    await expect(
      pm.logs({ token, query: q({ uuids: [{ uuid: 'a' }] }), how_far: 0 }),
    ).resolves.toEqual({
      name: 'a',
      uuid: { uuid: 'a' },
      lines: ['hello'],
      flag: ResponseFlag.EXECUTED_SUCCESSFULLY,
    });
    const bad = await pm.logs({ token, query: q({ session: 'run-1' }), how_far: 10 });
    expect(bad.flag).toBe(ResponseFlag.NOT_EXECUTED_BAD_REQUEST_FORMAT);
    const empty = await pm.logs({ token, query: null, how_far: 10 });
    expect(empty.flag).toBe(ResponseFlag.NOT_EXECUTED_BAD_REQUEST_FORMAT);
  });

  it('describe names kpm with drunc’s eight commands', () => {
    const { pm } = gateway([]);
    const d = pm.describe({ token });
    expect([d.type, d.name, d.endpoint, d.commands.length]).toEqual([
      'process_manager',
      'kpm',
      'grpc://h:1',
      8,
    ]);
  });
});
