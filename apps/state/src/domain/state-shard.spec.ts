import { CommandType, type CommandCompleted, type KpmEvent } from '@kpm/contracts';
import {
  bootAccepted,
  booted,
  bootFailed,
  command,
  instance,
  killAccepted,
  logsFetched,
  permutations,
  podOf,
  rejected,
  SESSION,
  terminated,
  uuidOf,
} from './__fixtures__/facts';
import { ShardHarness } from './__fixtures__/shard-harness';

const NAMES = ['ru-01', 'ru-02', 'ru-03'];
const EXIT = { 'ru-01': 143, 'ru-02': 0, 'ru-03': 137 } as const;
const popcount = (n: number) => n.toString(2).replace(/0/g, '').length;
const bootAll = () => [bootAccepted('boot-1', NAMES), ...NAMES.map((n) => booted('boot-1', n))];
const exits = (c: CommandCompleted) =>
  Object.fromEntries(
    c.processes.map((p) => [p.description.metadata.name, [p.statusCode, p.returnCode]]),
  );

describe('StateShard: boot', () => {
  it('completes a boot as succeeded once every process is booted, with START and SUCCESS', () => {
    const h = new ShardHarness().feed(...bootAll());
    const [done] = h.completions();
    expect(h.completions()).toHaveLength(1);
    expect(done).toMatchObject({
      commandId: 'boot-1',
      commandType: CommandType.boot,
      session: SESSION,
      status: 'succeeded',
    });
    expect(done.processes.map((p) => p.statusCode)).toEqual(['RUNNING', 'RUNNING', 'RUNNING']);
    expect(h.broadcasts().map((b) => b.broadcastType)).toEqual([
      'COMMAND_EXECUTION_START',
      'COMMAND_EXECUTION_SUCCESS',
    ]);
    expect(h.effects.filter((e) => e.kind === 'process')).toHaveLength(3);
  });

  it('fails a boot when any process fails, naming it by its place in the command', () => {
    const h = new ShardHarness().feed(
      bootAccepted('boot-1', NAMES),
      booted('boot-1', 'ru-01'),
      bootFailed('boot-1', 'ru-02'),
    );
    expect(h.completions()).toHaveLength(0);
    h.feed(booted('boot-1', 'ru-03'));
    const [done] = h.completions();
    expect(done.status).toBe('failed');
    expect(done.errors).toEqual([
      { path: 'processes[1]', message: expect.stringMatching(/ru-02 .* PodReadyTimeout/) },
    ]);
    expect(done.processes.map((p) => p.description.metadata.name)).toEqual(['ru-01', 'ru-03']);
    expect(h.broadcasts('COMMAND_EXECUTION_FAILED')).toHaveLength(1);
  });

  it('accepts boot facts that arrive before the boot.accepted and ignores duplicates', () => {
    const h = new ShardHarness().feed(
      booted('boot-1', 'ru-01'),
      booted('boot-1', 'ru-01'),
      bootAccepted('boot-1', ['ru-01']),
    );
    h.feed(booted('boot-1', 'ru-01'), bootAccepted('boot-1', ['ru-01']));
    expect(h.completions()).toHaveLength(1);
    expect(h.completions()[0].status).toBe('succeeded');
  });

  it('shows a process that died before its boot completed as DEAD in the completion', () => {
    const h = new ShardHarness().feed(
      bootAccepted('boot-1', ['ru-01', 'ru-02']),
      booted('boot-1', 'ru-01'),
      terminated('ru-01', 3),
    );
    h.feed(booted('boot-1', 'ru-02'));
    expect(exits(h.completions()[0])).toEqual({
      'ru-01': ['DEAD', 3],
      'ru-02': ['RUNNING', undefined],
    });
  });
});

describe('StateShard: kill in every interleaving', () => {
  const killFacts = () => [
    killAccepted('kill-1', [NAMES]),
    ...NAMES.map((n) => terminated(n, EXIT[n as keyof typeof EXIT])),
  ];

  it.each(permutations([0, 1, 2, 3]).map((order) => [order.join('')]))(
    'order %s → one succeeded completion with exit codes',
    (order) => {
      const facts = killFacts();
      const h = new ShardHarness().feed(...bootAll());
      for (const i of order) h.feed(facts[Number(i)]);
      const kills = h.completions().filter((c) => c.commandId === 'kill-1');
      expect(kills).toHaveLength(1);
      expect(kills[0].status).toBe('succeeded');
      expect(exits(kills[0])).toEqual({
        'ru-01': ['DEAD', 143],
        'ru-02': ['DEAD', 0],
        'ru-03': ['DEAD', 137],
      });
    },
  );

  it('completes once in all 720 orders of the kill.accepted, three terminations, a duplicate and a foreign one', () => {
    const facts = [...killFacts(), terminated('ru-01', 143), terminated('other', 9)];
    for (const order of permutations([0, 1, 2, 3, 4, 5])) {
      const h = new ShardHarness().feed(...bootAll(), ...order.map((i) => facts[i]));
      const kills = h.completions().filter((c) => c.commandId === 'kill-1');
      expect(kills).toHaveLength(1);
      expect(exits(kills[0])).toEqual({
        'ru-01': ['DEAD', 143],
        'ru-02': ['DEAD', 0],
        'ru-03': ['DEAD', 137],
      });
      expect(h.broadcasts('SUBPROCESS_STATUS_UPDATE')).toHaveLength(4);
    }
  });

  it('completes once in all 336 interleavings of the boot facts (in their order) with the terminations', () => {
    const facts = killFacts();
    const processEvents = [...bootAll(), facts[0]];
    const terminations = facts.slice(1);
    let orders = 0;
    for (const ends of permutations(terminations)) {
      // Choose where the 3 terminations sit among the 8 slots; process-events keep their order.
      for (let mask = 0; mask < 1 << 8; mask++) {
        if (popcount(mask) !== 3) continue;
        const sequence: KpmEvent[] = [];
        let [e, t] = [0, 0];
        for (let slot = 0; slot < 8; slot++)
          sequence.push(mask & (1 << slot) ? ends[t++] : processEvents[e++]);
        const h = new ShardHarness().feed(...sequence);
        expect(h.completions().map((c) => [c.commandId, c.status])).toEqual([
          ['boot-1', 'succeeded'],
          ['kill-1', 'succeeded'],
        ]);
        expect(h.shard.table.all().map((p) => p.statusCode)).toEqual(['DEAD', 'DEAD', 'DEAD']);
        orders++;
      }
    }
    expect(orders).toBe(6 * 56);
  });

  it('keeps terminations that came before the process.booted and the kill.accepted', () => {
    const h = new ShardHarness().feed(
      ...NAMES.map((n) => terminated(n, 1)),
      ...bootAll(),
      killAccepted('kill-1', [NAMES]),
    );
    const kill = h.completions().find((c) => c.commandId === 'kill-1')!;
    expect(kill.status).toBe('succeeded');
    expect(kill.processes.every((p) => p.statusCode === 'DEAD' && p.returnCode === 1)).toBe(true);
    expect(h.shard.table.all().every((p) => p.statusCode === 'DEAD')).toBe(true);
  });

  it('ignores duplicates and terminations of foreign uuids', () => {
    const h = new ShardHarness().feed(...bootAll(), killAccepted('kill-1', [['ru-01', 'ru-02']]));
    h.feed(terminated('ru-01', 143), terminated('ru-01', 143), terminated('ru-03', 9));
    expect(h.completions().filter((c) => c.commandId === 'kill-1')).toHaveLength(0);
    h.feed(
      terminated('ru-02', 143),
      terminated('ru-02', 143),
      killAccepted('kill-1', [['ru-01', 'ru-02']]),
    );
    const kills = h.completions().filter((c) => c.commandId === 'kill-1');
    expect(kills).toHaveLength(1);
    expect(kills[0].processes.map((p) => p.description.metadata.name)).toEqual(['ru-01', 'ru-02']);
    expect(h.broadcasts('SUBPROCESS_STATUS_UPDATE')).toHaveLength(3);
  });

  it("broadcasts each termination once with drunc's exact text", () => {
    const h = new ShardHarness().feed(...bootAll(), terminated('ru-02', 0), terminated('ru-02', 0));
    const updates = h.broadcasts('SUBPROCESS_STATUS_UPDATE');
    expect(updates).toHaveLength(1);
    expect(updates[0].text).toBe(
      `Pod 'ru-02' (session: '${SESSION}', user: 'daq', uuid: ${uuidOf('ru-02')}) terminated with exit code 0. Reason: Completed`,
    );
  });

  it('completes an empty kill (nothing matched) at once', () => {
    const h = new ShardHarness().feed(killAccepted('kill-0', []));
    expect(h.completions()).toMatchObject([
      { commandId: 'kill-0', status: 'succeeded', processes: [] },
    ]);
  });

  it('times out with the pending uuids at timeoutSeconds after the kill.accepted, once', () => {
    const at = Date.parse('2026-01-01T00:00:30.000Z');
    const h = new ShardHarness().feed(
      ...bootAll(),
      killAccepted('kill-1', [NAMES], { timeoutSeconds: 5, at }),
      terminated('ru-01', 143),
    );
    h.tick(4_999);
    expect(h.completions().filter((c) => c.commandId === 'kill-1')).toHaveLength(0);
    expect(h.shard.nextDeadline()).toBe(at + 5_000);
    h.tick(1).tick(10_000).feed(terminated('ru-02', 143));
    const kills = h.completions().filter((c) => c.commandId === 'kill-1');
    expect(kills).toHaveLength(1);
    expect(kills[0].status).toBe('timed_out');
    expect(kills[0].pending).toEqual([uuidOf('ru-02'), uuidOf('ru-03')]);
    expect(kills[0].errors).toEqual([
      { message: '2 of 3 processes still pending after 5 s (1 ended)' },
    ]);
    expect(exits(kills[0])['ru-01']).toEqual(['DEAD', 143]);
    expect(h.broadcasts('COMMAND_EXECUTION_FAILED')).toHaveLength(1);
    expect(h.shard.nextDeadline()).toBeUndefined();
  });
});

describe('StateShard: a kill with a progress timeout runs on while its pods keep ending', () => {
  const at = Date.parse('2026-01-01T00:00:30.000Z');
  /** `name`'s pod ended `after` ms past the kill's acceptance. */
  const endedAt = (name: string, after: number): KpmEvent => ({
    ...terminated(name, 143),
    time: new Date(at + after).toISOString(),
  });
  const kill = (timeoutSeconds: number) =>
    killAccepted('kill-1', [NAMES], { timeoutSeconds, progressTimeoutSeconds: 5, at });
  const killsOf = (h: ShardHarness) => h.completions().filter((c) => c.commandId === 'kill-1');

  it('moves the deadline to each ending plus the progress timeout, and completes once', () => {
    const h = new ShardHarness().feed(...bootAll(), kill(5));
    h.now = at;
    h.feed(endedAt('ru-01', 4_000));
    expect(h.shard.nextDeadline()).toBe(at + 9_000);
    h.tick(8_999).feed(endedAt('ru-02', 8_000));
    expect(killsOf(h)).toHaveLength(0);
    expect(h.shard.nextDeadline()).toBe(at + 13_000);
    h.tick(3_000).feed(endedAt('ru-03', 12_000)).tick(60_000);
    expect(killsOf(h)).toMatchObject([{ status: 'succeeded' }]);
  });

  it('times out once none ended for the progress timeout, and says so', () => {
    const h = new ShardHarness().feed(...bootAll(), kill(5));
    h.now = at;
    h.feed(endedAt('ru-01', 4_000)).tick(9_000);
    expect(killsOf(h)).toMatchObject([
      {
        status: 'timed_out',
        pending: [uuidOf('ru-02'), uuidOf('ru-03')],
        errors: [
          {
            message:
              '2 of 3 processes still pending after 9 s (1 ended, none ended in the last 5 s)',
          },
        ],
      },
    ]);
  });

  it('never times out before timeoutSeconds', () => {
    const h = new ShardHarness().feed(...bootAll(), kill(60), endedAt('ru-01', 1_000));
    expect(h.shard.nextDeadline()).toBe(at + 60_000);
  });

  it('a restore from the same facts arrives at the same deadline', () => {
    const facts = [...bootAll(), kill(5), endedAt('ru-01', 4_000), endedAt('ru-02', 7_000)];
    const live = new ShardHarness().feed(...facts);
    const restored = new ShardHarness();
    restored.shard.beginRestore();
    restored.feed(...facts);
    restored.shard.endRestore();
    expect(restored.shard.nextDeadline()).toBe(at + 12_000);
    expect(live.shard.nextDeadline()).toBe(at + 12_000);
  });
});

describe('StateShard: a timed-out kill says how far it got', () => {
  const at = Date.parse('2026-01-01T00:00:30.000Z');
  it.each([
    {
      case: 'a kill with one of three ended',
      facts: [killAccepted('k', [NAMES], { timeoutSeconds: 5, at }), terminated('ru-01', 143)],
      message: '2 of 3 processes still pending after 5 s (1 ended)',
    },
    {
      case: 'a kill with none ended',
      facts: [killAccepted('k', [NAMES], { timeoutSeconds: 5, at })],
      message: '3 of 3 processes still pending after 5 s (0 ended)',
    },
    {
      case: 'a restart whose old pod did not end',
      facts: [killAccepted('k', [['ru-01']], { kind: 'restart', timeoutSeconds: 5, at })],
      message: '1 of 1 processes still pending after 5 s (0 ended)',
    },
    {
      case: 'a restart whose new pod never came',
      facts: [
        killAccepted('k', [['ru-01']], { kind: 'restart', timeoutSeconds: 5, at }),
        terminated('ru-01', 143),
      ],
      message: 'the process was not booted again within 5 s',
    },
  ])('$case', ({ facts, message }) => {
    const h = new ShardHarness().feed(...bootAll(), ...facts).tick(10_000);
    const timedOut = h.completions().filter((c) => c.commandId === 'k');
    expect(timedOut).toMatchObject([{ status: 'timed_out', errors: [{ message }] }]);
  });
});

describe('StateShard: restart reuses the uuid', () => {
  const restart = (...order: KpmEvent[]) =>
    new ShardHarness().feed(bootAccepted('boot-1', ['ru-01']), booted('boot-1', 'ru-01'), ...order);

  it('waits for the old pod to end and the new one to boot, then reports the new pod', () => {
    const h = restart(
      killAccepted('restart-1', [['ru-01']], { kind: 'restart' }),
      terminated('ru-01', 143),
    );
    expect(h.completions().filter((c) => c.commandId === 'restart-1')).toHaveLength(0);
    h.feed(booted('restart-1', 'ru-01', 2));
    const [done] = h.completions().filter((c) => c.commandId === 'restart-1');
    expect(done).toMatchObject({ commandType: CommandType.restart, status: 'succeeded' });
    expect(done.processes).toMatchObject([{ podUid: podOf('ru-01', 2), statusCode: 'RUNNING' }]);
  });

  it("never lets the old pod's late termination kill the new instance", () => {
    const h = restart(
      killAccepted('restart-1', [['ru-01']], { kind: 'restart' }),
      booted('restart-1', 'ru-01', 2),
    );
    h.feed(terminated('ru-01', 143, 1));
    expect(h.completions().filter((c) => c.commandId === 'restart-1')).toHaveLength(1);
    expect(h.shard.table.get(uuidOf('ru-01'))).toMatchObject({
      podUid: podOf('ru-01', 2),
      statusCode: 'RUNNING',
    });
    h.feed(terminated('ru-01', 0, 2));
    expect(h.shard.table.get(uuidOf('ru-01'))).toMatchObject({
      podUid: podOf('ru-01', 2),
      statusCode: 'DEAD',
      returnCode: 0,
    });
  });

  it('a kill after the restart targets the new pod, not the old one', () => {
    const h = restart(
      killAccepted('restart-1', [['ru-01']], { kind: 'restart' }),
      terminated('ru-01', 143, 1),
      booted('restart-1', 'ru-01', 2),
    );
    h.feed(killAccepted('kill-2', [['ru-01']], { at: Date.parse('2026-01-01T00:01:00.000Z') }));
    expect(h.completions().filter((c) => c.commandId === 'kill-2')).toHaveLength(0);
    h.feed(terminated('ru-01', 137, 2));
    expect(exits(h.completions().find((c) => c.commandId === 'kill-2')!)).toEqual({
      'ru-01': ['DEAD', 137],
    });
  });

  it('fails a restart whose new pod could not be booted', () => {
    const h = restart(
      killAccepted('restart-1', [['ru-01']], { kind: 'restart' }),
      terminated('ru-01', 143),
      bootFailed('restart-1', 'ru-01'),
    );
    expect(h.completions().find((c) => c.commandId === 'restart-1')).toMatchObject({
      status: 'failed',
      errors: [{ message: expect.stringMatching(/failed to boot again/) }],
    });
  });

  it('fails a restart at once when its old pod never went away and the reboot failed', () => {
    const h = restart(
      killAccepted('restart-1', [['ru-01']], { kind: 'restart' }),
      bootFailed('restart-1', 'ru-01'),
    );
    expect(h.completions().find((c) => c.commandId === 'restart-1')).toMatchObject({
      status: 'failed',
      pending: [uuidOf('ru-01')],
    });
    h.tick(120_000);
    expect(h.completions().filter((c) => c.commandId === 'restart-1')).toHaveLength(1);
  });
});

describe('StateShard: a restart of several processes (drunc restarts every uuid matched)', () => {
  const restart = (...order: KpmEvent[]) =>
    new ShardHarness().feed(
      bootAccepted('boot-1', ['ru-01', 'ru-02']),
      booted('boot-1', 'ru-01'),
      booted('boot-1', 'ru-02'),
      ...order,
    );
  const accepted = killAccepted('restart-2', [['ru-01', 'ru-02']], { kind: 'restart' });
  const mine = (h: ShardHarness) => h.completions().filter((c) => c.commandId === 'restart-2');

  // The boot-worker writes kill.accepted before it reboots anything; the watcher's terminations
  // may come at any point.
  it.each([
    ['in order', ['acc', 'end1', 'boot2', 'end2', 'boot1']],
    ['terminations first', ['end2', 'end1', 'acc', 'boot1', 'boot2']],
    ['reboots first', ['acc', 'boot1', 'boot2', 'end1', 'end2']],
  ])('completes once every old pod ended and every process is back: %s', (_, order) => {
    const fact: Record<string, KpmEvent> = {
      acc: accepted,
      end1: terminated('ru-01', 143),
      end2: terminated('ru-02', 143),
      boot1: booted('restart-2', 'ru-01', 2),
      boot2: booted('restart-2', 'ru-02', 2),
    };
    const h = restart(...order.slice(0, -1).map((k) => fact[k]));
    expect(mine(h)).toHaveLength(0);
    h.feed(fact[order[order.length - 1]]);
    const [done] = mine(h);
    expect(done).toMatchObject({ commandType: CommandType.restart, status: 'succeeded' });
    expect(done.processes.map((p) => p.podUid).sort()).toEqual(
      [podOf('ru-01', 2), podOf('ru-02', 2)].sort(),
    );
  });

  it('fails naming each process that could not be booted again, reporting the others back', () => {
    const h = restart(
      accepted,
      terminated('ru-01', 143),
      terminated('ru-02', 143),
      booted('restart-2', 'ru-01', 2),
      bootFailed('restart-2', 'ru-02'),
    );
    const [done] = mine(h);
    expect(done.status).toBe('failed');
    expect(done.processes.map((p) => p.podUid)).toEqual([podOf('ru-01', 2)]);
    expect(done.errors).toEqual([
      { message: expect.stringMatching(/^ru-02 \(.*\) was stopped but failed to boot again/) },
    ]);
  });

  it('ignores a reboot of a process it does not restart', () => {
    const h = restart(accepted, booted('restart-2', 'ru-03', 2));
    h.feed(terminated('ru-01', 143), terminated('ru-02', 143), booted('restart-2', 'ru-01', 2));
    expect(mine(h)).toHaveLength(0);
    h.feed(booted('restart-2', 'ru-02', 2));
    expect(mine(h)).toHaveLength(1);
  });

  it('times out saying how many did not come back', () => {
    const at = Date.parse('2026-01-01T00:00:30.000Z');
    const h = restart(
      killAccepted('restart-2', [['ru-01', 'ru-02']], { kind: 'restart', timeoutSeconds: 5, at }),
      terminated('ru-01', 143),
      terminated('ru-02', 143),
      booted('restart-2', 'ru-02', 2),
    ).tick(10_000);
    expect(mine(h)).toMatchObject([
      {
        status: 'timed_out',
        errors: [{ message: '1 of 2 processes were not booted again within 5 s' }],
      },
    ]);
  });
});

describe('StateShard: rejected, logs, ps and flush', () => {
  it('turns command.rejected into a rejected completion with the errors, once', () => {
    const h = new ShardHarness().feed(rejected('bad-1'), rejected('bad-1'));
    expect(h.completions()).toMatchObject([
      { commandId: 'bad-1', status: 'rejected', errors: [{ path: 'processes[0].name' }] },
    ]);
  });

  it('answers logs from logs.fetched', () => {
    const h = new ShardHarness().feed(...bootAll(), logsFetched('logs-1', 'ru-02'));
    expect(h.completions().find((c) => c.commandId === 'logs-1')).toMatchObject({
      status: 'succeeded',
      logs: [{ uuid: uuidOf('ru-02'), lines: ['line 1', 'line 2'] }],
      processes: [{ uuid: uuidOf('ru-02') }],
    });
  });

  it('answers ps from the table with the query applied', () => {
    const h = new ShardHarness().feed(...bootAll(), terminated('ru-02', 0));
    h.feed(
      command(CommandType.ps, 'ps-1', { names: ['^ru-0[12]$'] }),
      command(CommandType.ps, 'ps-1', {}),
    );
    const answers = h.completions().filter((c) => c.commandId === 'ps-1');
    expect(answers).toHaveLength(1);
    expect(exits(answers[0])).toEqual({ 'ru-01': ['RUNNING', undefined], 'ru-02': ['DEAD', 0] });
    expect(h.broadcasts('COMMAND_RECEIVED').map((b) => b.id)).toHaveLength(2);
  });

  it('answers ps in pages of at most limit, with a cursor while more follow', () => {
    const many = Array.from({ length: 7 }, (_, i) => `ru-${i}`);
    const h = new ShardHarness().feed(
      bootAccepted('boot-7', many),
      ...many.map((n) => booted('boot-7', n)),
    );
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 1; page <= 3; page++) {
      h.feed(
        command(CommandType.ps, `ps-${page}`, {}, { limit: 3, ...(cursor ? { cursor } : {}) }),
      );
      const answer = h.completions().find((c) => c.commandId === `ps-${page}`)!;
      seen.push(...answer.processes.map((p) => p.description.metadata.name));
      cursor = answer.nextCursor;
    }
    expect(seen).toEqual(many);
    expect(cursor).toBeUndefined();
  });

  it('flush forgets DEAD processes only, with tombstones', () => {
    const h = new ShardHarness().feed(
      ...bootAll(),
      terminated('ru-02', 0),
      command(CommandType.flush, 'flush-1', {}),
    );
    expect(h.effects.filter((e) => e.kind === 'tombstone')).toEqual([
      { kind: 'tombstone', uuid: uuidOf('ru-02'), session: SESSION },
    ]);
    expect(
      h
        .completions()
        .find((c) => c.commandId === 'flush-1')!
        .processes.map((p) => p.uuid),
    ).toEqual([uuidOf('ru-02')]);
    expect(
      h.shard.table
        .all()
        .map((p) => p.description.metadata.name)
        .sort(),
    ).toEqual(['ru-01', 'ru-03']);
    h.feed(terminated('ru-02', 0));
    expect(h.shard.table.get(uuidOf('ru-02'))).toBeUndefined();
  });
});

describe('StateShard: flush by another user', () => {
  it.each<[string, string, string[], string | undefined]>([
    ['the owner', 'daq', [], undefined],
    ['another user', 'eve', [], `session "${SESSION}" belongs to user "daq", not "eve"`],
    ['an operator', 'shifter', ['shifter'], undefined],
    [
      'a user another deployment calls operator',
      'eve',
      ['shifter'],
      `session "${SESSION}" belongs to user "daq", not "eve"`,
    ],
  ])('%s', (_, user, operators, refusal) => {
    const h = new ShardHarness(operators).feed(
      ...bootAll(),
      terminated('ru-02', 0),
      command(CommandType.flush, 'flush-1', {}, {}, user),
    );
    const completion = h.completions().find((c) => c.commandId === 'flush-1')!;
    if (refusal) {
      expect(completion).toMatchObject({
        status: 'rejected',
        processes: [],
        errors: [{ path: 'query', message: refusal }],
      });
      expect(h.effects.filter((e) => e.kind === 'tombstone')).toEqual([]);
      expect(h.shard.table.get(uuidOf('ru-02'))?.statusCode).toBe('DEAD');
    } else {
      expect(completion.status).toBe('succeeded');
      expect(completion.processes.map((p) => p.uuid)).toEqual([uuidOf('ru-02')]);
    }
  });

  it('lets the next flush of the owner through after a refusal', () => {
    const h = new ShardHarness().feed(
      ...bootAll(),
      terminated('ru-02', 0),
      command(CommandType.flush, 'flush-eve', {}, {}, 'eve'),
      command(CommandType.flush, 'flush-daq', {}, {}, 'daq'),
    );
    expect(h.completions().map((c) => [c.commandId, c.status])).toEqual(
      expect.arrayContaining([
        ['flush-eve', 'rejected'],
        ['flush-daq', 'succeeded'],
      ]),
    );
  });
});

/**
 * Issue #30's two sequences on the real node: a process whose end kpm recorded, flushed, then
 * its pod deleted by a terminate. The watcher publishes a pod's end once, so a terminate that
 * waited for it again would time out.
 */
describe('StateShard: an end recorded before a flush', () => {
  const terminate = (id: string, names: string[], pods: Record<string, number>) =>
    killAccepted(id, [names], { kind: 'terminate', pods });
  const flush = command(CommandType.flush, 'flush-1', {});

  it('image pull: DEAD −1 ErrImagePull, flush, terminate → succeeded at once, never again', () => {
    const h = new ShardHarness().feed(
      bootAccepted('boot-1', ['ru-01']),
      booted('boot-1', 'ru-01'),
      terminated('ru-01', -1, 1, SESSION, 'ErrImagePull'),
      flush,
    );
    expect(h.shard.table.get(uuidOf('ru-01'))).toBeUndefined();
    h.feed(terminate('term-1', ['ru-01'], { 'ru-01': 1 }));
    expect(h.completions().find((c) => c.commandId === 'term-1')).toMatchObject({
      status: 'succeeded',
      processes: [],
    });
    expect(h.shard.openCommands()).toEqual([]);
    h.feed(terminated('ru-01', -1, 1, SESSION, 'PodDeleted')).tick(3_600_000);
    expect(h.completions().filter((c) => c.commandId === 'term-1')).toHaveLength(1);
    expect(h.shard.table.get(uuidOf('ru-01'))).toBeUndefined();
  });

  it("drunc's shell: restart, kill before start (−1 DeletedBeforeStart), flush, terminate → succeeded when the others end", () => {
    const h = new ShardHarness().feed(
      ...bootAll(),
      killAccepted('restart-1', [['ru-01']], { kind: 'restart', pods: { 'ru-01': 1 } }),
      terminated('ru-01', 143, 1),
      booted('restart-1', 'ru-01', 2),
      killAccepted('kill-1', [['ru-01']], { pods: { 'ru-01': 2 } }),
      terminated('ru-01', -1, 2, SESSION, 'DeletedBeforeStart'),
      flush,
    );
    const status = (id: string) => h.completions().find((c) => c.commandId === id)?.status;
    expect([status('restart-1'), status('kill-1'), status('flush-1')]).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
    h.feed(terminate('term-1', NAMES, { 'ru-01': 2, 'ru-02': 1, 'ru-03': 1 }));
    expect(h.shard.openCommand('term-1')!.pending).toEqual([uuidOf('ru-02'), uuidOf('ru-03')]);
    h.feed(terminated('ru-02', 143), terminated('ru-03', 143));
    const done = h.completions().find((c) => c.commandId === 'term-1')!;
    expect(done.status).toBe('succeeded');
    expect(exits(done)).toEqual({ 'ru-02': ['DEAD', 143], 'ru-03': ['DEAD', 143] });
    h.tick(3_600_000);
    expect(h.completions().filter((c) => c.commandId === 'term-1')).toHaveLength(1);
  });

  it('waits for the pod the boot-worker named, even before its process.booted is read', () => {
    const h = new ShardHarness().feed(...bootAll(), terminated('ru-01', 1, 1));
    h.feed(killAccepted('kill-2', [['ru-01']], { pods: { 'ru-01': 2 } }));
    expect(h.shard.openCommand('kill-2')!.pending).toEqual([uuidOf('ru-01')]);
    h.feed(booted('boot-2', 'ru-01', 2), terminated('ru-01', 143, 2));
    expect(exits(h.completions().find((c) => c.commandId === 'kill-2')!)).toEqual({
      'ru-01': ['DEAD', 143],
    });
  });

  it('still waits for a pod of a flushed process that kpm never saw end', () => {
    const h = new ShardHarness().feed(
      ...bootAll(),
      terminated('ru-01', 0),
      flush,
      killAccepted('kill-3', [['ru-01']], { pods: { 'ru-01': 2 } }),
    );
    expect(h.shard.openCommand('kill-3')!.pending).toEqual([uuidOf('ru-01')]);
    h.tick(60_000);
    expect(h.completions().find((c) => c.commandId === 'kill-3')).toMatchObject({
      status: 'timed_out',
      errors: [{ message: '1 of 1 processes still pending after 60 s (0 ended)' }],
    });
  });
});

describe('StateShard: restore', () => {
  it('rebuilds an open kill without publishing anything again, then completes it once', () => {
    const history = [
      ...bootAll(),
      killAccepted('kill-1', [NAMES]),
      terminated('ru-01', 143),
      terminated('ru-02', 0),
    ];
    const before = new ShardHarness().feed(...history);
    const after = before.restored(history);
    expect(after.effects).toEqual([]);
    expect(after.shard.openCommand('kill-1')!.pending).toEqual([uuidOf('ru-03')]);
    after.feed(terminated('ru-02', 0), terminated('ru-03', 137));
    expect(after.completions().map((c) => c.commandId)).toEqual(['kill-1']);
    expect(exits(after.completions()[0])).toEqual({
      'ru-01': ['DEAD', 143],
      'ru-02': ['DEAD', 0],
      'ru-03': ['DEAD', 137],
    });
  });

  it('fires a deadline that passed while nobody owned the shard, once', () => {
    const history = [
      ...bootAll(),
      killAccepted('kill-1', [NAMES], {
        timeoutSeconds: 5,
        at: Date.parse('2026-01-01T00:00:30.000Z'),
      }),
    ];
    const before = new ShardHarness().feed(...history);
    before.now += 60_000;
    const after = before.restored(history);
    expect(after.completions()).toMatchObject([{ commandId: 'kill-1', status: 'timed_out' }]);
    const again = Object.assign(new ShardHarness(), {
      effects: [...before.effects, ...after.effects],
      now: after.now,
    }).restored(history);
    expect(again.completions()).toEqual([]);
  });

  it('does not count a restored DEAD row of an older pod against a kill of the new pod', () => {
    const history = [
      bootAccepted('boot-1', ['ru-01']),
      booted('boot-1', 'ru-01'),
      terminated('ru-01', 1, 1),
      booted('boot-2', 'ru-01', 2),
      killAccepted('kill-9', [['ru-01']], { at: Date.parse('2026-01-01T00:01:00.000Z') }),
    ];
    const before = new ShardHarness().feed(...history);
    const after = before.restored(history);
    expect(after.shard.openCommand('kill-9')!.pending).toEqual([uuidOf('ru-01')]);
    expect(after.shard.table.get(uuidOf('ru-01'))).toMatchObject({ podUid: podOf('ru-01', 2) });
    expect(instance('ru-01', 2).podUid).toBe(podOf('ru-01', 2));
  });

  it('restores a terminate that met a flushed end, and completes it once', () => {
    const history = [
      ...bootAll(),
      terminated('ru-01', -1, 1, SESSION, 'ErrImagePull'),
      command(CommandType.flush, 'flush-1', {}),
      killAccepted('term-1', [NAMES], {
        kind: 'terminate',
        pods: { 'ru-01': 1, 'ru-02': 1, 'ru-03': 1 },
      }),
      terminated('ru-02', 143),
    ];
    const before = new ShardHarness().feed(...history);
    expect(before.shard.openCommand('term-1')!.pending).toEqual([uuidOf('ru-03')]);
    const after = before.restored(history);
    expect(after.completions()).toEqual([]);
    expect(after.shard.openCommand('term-1')!.pending).toEqual([uuidOf('ru-03')]);
    expect(after.shard.table.get(uuidOf('ru-01'))).toBeUndefined();
    after.feed(terminated('ru-03', 143));
    expect(after.completions()).toMatchObject([{ commandId: 'term-1', status: 'succeeded' }]);
    after.tick(3_600_000);
    expect(after.completions()).toHaveLength(1);
  });

  it('after a restore, a flushed end is still not waited for', () => {
    const history = [
      bootAccepted('boot-1', ['ru-01']),
      booted('boot-1', 'ru-01'),
      terminated('ru-01', -1, 1, SESSION, 'ErrImagePull'),
      command(CommandType.flush, 'flush-1', {}),
    ];
    const after = new ShardHarness().feed(...history).restored(history);
    after.feed(killAccepted('term-1', [['ru-01']], { kind: 'terminate', pods: { 'ru-01': 1 } }));
    expect(after.completions()).toMatchObject([{ commandId: 'term-1', status: 'succeeded' }]);
  });
});
