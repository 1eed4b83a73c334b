/**
 * The exit policy through the shard, in virtual time: an end nobody asked for is decided in the
 * step that records it, a restart is sent once its backoff is due, a user's command wins over a
 * pending restart, and a restore neither repeats nor loses what was decided.
 */
import {
  buildEvent,
  CommandType,
  eventId,
  ProcessEventType,
  type ExitPolicy,
  type KpmEvent,
  type RestartCommand,
} from '@kpm/contracts';
import {
  bootAccepted,
  command,
  instance,
  killAccepted,
  podOf,
  rejected,
  SESSION,
  terminated,
  uuidOf,
} from './__fixtures__/facts';
import { ShardHarness } from './__fixtures__/shard-harness';

const POLICY: ExitPolicy = {
  rules: [
    { action: 'Ignore', exitCodes: { operator: 'In', values: [0] } },
    { action: 'FailSession', exitCodes: { operator: 'In', values: [139] } },
    { action: 'Restart' },
  ],
  maxRestarts: 2,
  backoffSeconds: 5,
};

/** The harness, and ru-01's row in its table. */
class Shard extends ShardHarness {
  row(name = 'ru-01') {
    return this.shard.table.get(uuidOf(name))!;
  }
}

/** process.booted of ru-01's `life`-th pod, with the policy its spec carries. */
function booted(commandId: string, life = 1): KpmEvent {
  return buildEvent({
    id: eventId('booted', commandId, String(life)),
    type: ProcessEventType.processBooted,
    source: '/kpm/test',
    subject: SESSION,
    data: { commandId, process: { ...instance('ru-01', life), exitPolicy: POLICY } },
  });
}

const BOOT = [bootAccepted('boot-1', ['ru-01']), booted('boot-1')];

/** The automatic restart's facts from the boot-worker: the old pod (ended) and the new one. */
function restartedBy(commandId: string, life: number): KpmEvent[] {
  return [
    killAccepted(commandId, [['ru-01']], { kind: 'restart', pods: { 'ru-01': life - 1 } }),
    booted(commandId, life),
  ];
}

describe('exit policy: Restart', () => {
  it('restarts after the backoff with an id from the end, then again, then leaves it DEAD', () => {
    const s = new Shard().feed(...BOOT, terminated('ru-01', 3));
    expect(s.row().automatic?.last).toMatchObject({ outcome: 'scheduled', attempt: 1, of: 2 });
    expect(s.effects.filter((e) => e.kind === 'death')).toHaveLength(1); // ERS still told
    expect(s.commands()).toEqual([]);
    expect(s.shard.nextDeadline()).toBe(s.now + 5000);

    s.tick(4999);
    expect(s.commands()).toEqual([]);
    s.tick(1);
    const [first] = s.commands();
    expect(first).toMatchObject({
      commandType: CommandType.restart,
      session: SESSION,
      data: { query: { uuids: [uuidOf('ru-01')] }, user: 'daq' },
    });
    expect(first.data.automatic).toMatchObject({
      outcome: 'issued',
      attempt: 1,
      of: 2,
      exitCode: 3,
    });
    expect(s.row().automatic).toMatchObject({ restarts: 1 });

    s.feed(...restartedBy(first.id, 2));
    const done = s.completions().find((c) => c.commandId === first.id)!;
    expect(done).toMatchObject({ status: 'succeeded', automatic: { attempt: 1, rule: 2 } });
    expect(s.row()).toMatchObject({ statusCode: 'RUNNING', automatic: { restarts: 1 } });

    s.feed(terminated('ru-01', 3, 2)).tick(9999);
    expect(s.commands()).toHaveLength(1);
    s.tick(1); // attempt 2 waits twice as long
    const second = s.commands()[1];
    expect(second.data.automatic).toMatchObject({ attempt: 2 });
    expect(second.id).not.toBe(first.id);

    s.feed(...restartedBy(second.id, 3), terminated('ru-01', 3, 3)).tick(600_000);
    expect(s.commands()).toHaveLength(2);
    expect(s.row()).toMatchObject({
      statusCode: 'DEAD',
      automatic: { restarts: 2, last: { outcome: 'exhausted' } },
    });
    expect(s.row().automatic!.last!.message).toContain('restart budget spent (2 of 2 in 600 s)');
  });

  it.each([
    ['kill-1', killAccepted('kill-1', [['ru-01']])],
    ['term-1', killAccepted('term-1', [['ru-01']], { kind: 'terminate' })],
    ['flush-1', command(CommandType.flush, 'flush-1', { uuids: [uuidOf('ru-01')] })],
  ])('%s of the process during the backoff wins: nothing is restarted', (id, user) => {
    const s = new Shard()
      .feed(...BOOT, terminated('ru-01', 3))
      .feed(user)
      .tick(60_000);
    expect(s.commands()).toEqual([]);
    const rows = s.effects.flatMap((e) => (e.kind === 'process' ? [e.instance] : []));
    expect(rows.at(-1)!.automatic!.last).toMatchObject({ outcome: 'cancelled', cancelledBy: id });
    expect(s.shard.nextDeadline()).toBeUndefined();
  });

  it('a terminate of the session wins even when its stages do not name the dead process', () => {
    const terminate = killAccepted('term-2', [['ru-02']], { kind: 'terminate' });
    const s = new Shard().feed(...BOOT, terminated('ru-01', 3), terminate).tick(60_000);
    expect(s.commands()).toEqual([]);
    expect(s.row().automatic!.last).toMatchObject({ outcome: 'cancelled', cancelledBy: 'term-2' });
  });

  it('a restore re-arms a scheduled restart at its due time, and sends it once', () => {
    const facts = [...BOOT, terminated('ru-01', 3)];
    const before = new Shard().feed(...facts);
    const after = before.restored(facts);
    expect(after.effects).toEqual([]);
    expect(after.shard.nextDeadline()).toBe(before.shard.nextDeadline());
    after.tick(5000);
    expect(after.commands()).toHaveLength(1);
    after.tick(60_000);
    expect(after.commands()).toHaveLength(1);
  });

  it('a restore after the restart was sent does not send it again', () => {
    const facts = [...BOOT, terminated('ru-01', 3)];
    const before = new Shard().feed(...facts).tick(5000);
    expect(before.commands()).toHaveLength(1);
    const after = before.restored(facts);
    after.tick(60_000);
    expect(after.commands()).toEqual([]);
    expect(after.row().automatic).toMatchObject({ restarts: 1, last: { outcome: 'issued' } });
  });
});

describe('exit policy: ends seen in another order, and ends the cluster caused', () => {
  it("decides an end seen before its pod's boot fact when that fact comes, and the restart's completion still says why", () => {
    const s = new Shard().feed(...BOOT, terminated('ru-01', 3)).tick(5000);
    const [first] = s.commands();
    // The restarted pod ends at once; its end is read before its boot fact.
    s.feed(
      killAccepted(first.id, [['ru-01']], { kind: 'restart', pods: { 'ru-01': 1 } }),
      terminated('ru-01', 3, 2),
    );
    expect(s.row().automatic!.last).toMatchObject({ outcome: 'issued', attempt: 1 });
    s.feed(booted(first.id, 2));
    expect(s.row()).toMatchObject({
      statusCode: 'DEAD',
      podUid: podOf('ru-01', 2),
      automatic: {
        restarts: 1,
        last: { outcome: 'scheduled', attempt: 2, podUid: podOf('ru-01', 2) },
      },
    });
    const done = s.completions().find((c) => c.commandId === first.id)!;
    expect(done.automatic).toMatchObject({ outcome: 'issued', attempt: 1 });
    expect(s.effects.filter((e) => e.kind === 'death')).toHaveLength(2); // told once per end
    s.tick(10_000);
    expect(s.commands().map((c) => c.data.automatic?.attempt)).toEqual([1, 2]);
  });

  it('decides the first end of a process seen before its boot fact', () => {
    const s = new Shard().feed(
      bootAccepted('boot-1', ['ru-01']),
      terminated('ru-01', 3),
      booted('boot-1'),
    );
    expect(s.row().automatic!.last).toMatchObject({ outcome: 'scheduled', attempt: 1 });
  });

  it("decides a lost node's end, though its pod was being deleted (by the node lifecycle)", () => {
    const lost = terminated('ru-01', -1, 1, SESSION, 'NodeLost');
    (lost.data as { deletionRequestedAt?: string }).deletionRequestedAt =
      '2026-01-01T00:00:19.000Z';
    const s = new Shard().feed(...BOOT, lost);
    expect(s.row().automatic!.last).toMatchObject({ outcome: 'scheduled', reason: 'NodeLost' });
  });

  it('leaves alone an end whose pod someone deleted', () => {
    const deleted = terminated('ru-01', 137, 1, SESSION, 'PodDeleted');
    (deleted.data as { deletionRequestedAt?: string }).deletionRequestedAt =
      '2026-01-01T00:00:19.000Z';
    const s = new Shard().feed(...BOOT, deleted);
    expect(s.row().automatic).toBeUndefined();
  });

  it('gives the budget back for a restart a user cancelled', () => {
    const s = new Shard().feed(...BOOT, terminated('ru-01', 3));
    expect(s.row().automatic!.recentRestarts).toHaveLength(1);
    s.feed(killAccepted('kill-1', [['ru-01']]));
    expect(s.row().automatic).toMatchObject({ recentRestarts: [], last: { outcome: 'cancelled' } });
  });

  it('quotes why in the completion of an automatic command that was rejected', () => {
    const s = new Shard().feed(...BOOT, terminated('ru-01', 3)).tick(5000);
    const [sent] = s.commands();
    s.feed(
      buildEvent({
        id: sent.id,
        type: CommandType.restart,
        source: '/kpm/state',
        subject: SESSION,
        data: sent.data as RestartCommand,
      }),
      rejected(sent.id),
    );
    const done = s.completions().find((c) => c.commandId === sent.id)!;
    expect(done).toMatchObject({
      status: 'rejected',
      automatic: { attempt: 1, outcome: 'issued' },
    });
  });
});

describe('exit policy: FailSession, Ignore, and ends somebody asked for', () => {
  it('139 sends a terminate of the session at once, saying why', () => {
    const s = new Shard().feed(...BOOT, terminated('ru-01', 139));
    const [terminate] = s.commands();
    expect(terminate).toMatchObject({
      commandType: CommandType.terminate,
      data: { session: SESSION, user: 'daq', automatic: { action: 'FailSession', rule: 1 } },
    });
    expect(s.row().automatic!.last!.commandId).toBe(terminate.id);
    s.feed(killAccepted(terminate.id, [['ru-01']], { kind: 'terminate' }));
    const done = s.completions().find((c) => c.commandId === terminate.id)!;
    expect(done.automatic).toMatchObject({ outcome: 'session-failed', exitCode: 139 });
  });

  it('Ignore records the end without telling ERS', () => {
    const s = new Shard().feed(...BOOT, terminated('ru-01', 0));
    expect(s.effects.filter((e) => e.kind === 'death')).toEqual([]);
    expect(s.row()).toMatchObject({
      statusCode: 'DEAD',
      automatic: { last: { outcome: 'ignored' } },
    });
  });

  it('an end a kill asked for is not the policy’s to decide', () => {
    const s = new Shard().feed(
      ...BOOT,
      killAccepted('kill-1', [['ru-01']]),
      terminated('ru-01', 3),
    );
    expect(s.row().automatic).toBeUndefined();
    expect(s.shard.nextDeadline()).toBeUndefined();
  });
});
