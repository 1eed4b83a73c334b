import { CommandType, type KillKind, type ProcessTerminated } from '@kpm/contracts';
import { instance, podOf, terminated, uuidOf } from '../__fixtures__/facts';
import { KillAggregate, type KillTarget } from '../kill-aggregate';
import { ProcessTable } from '../process-table';
import { killCompletion, killTimedOut } from './kill';

const ended = (name: string, life = 1) => terminated(name, 137, life).data as ProcessTerminated;

/** A kill of ru-01 and ru-02 (their first pods), both booted, accepted at 0 with a 60 s bound. */
function killOf(
  kind: KillKind,
  targets: Partial<Record<'ru-01' | 'ru-02', Partial<KillTarget>>> = {},
  progressTimeoutMs?: number,
): { kill: KillAggregate; table: ProcessTable } {
  const table = new ProcessTable();
  const names = ['ru-01', 'ru-02'] as const;
  for (const name of names) table.booted(instance(name));
  const timing =
    progressTimeoutMs === undefined
      ? { timeoutMs: 60_000 }
      : { timeoutMs: 60_000, progressTimeoutMs };
  const kill = new KillAggregate(
    'kill-1',
    kind,
    'run-42',
    0,
    timing,
    names.map((name) => ({ uuid: uuidOf(name), podUid: podOf(name), ...targets[name] })),
  );
  return { kill, table };
}

const rows = (
  processes: {
    description: { metadata: { name: string } };
    statusCode: string;
    returnCode?: number;
  }[],
) =>
  processes.map(
    (p) =>
      `${p.description.metadata.name}:${p.statusCode}${p.returnCode === undefined ? '' : ` ${p.returnCode}`}`,
  );

describe('when a kill or terminate of ru-01 and ru-02 completes', () => {
  it.each<
    [
      string,
      KillKind,
      ProcessTerminated[],
      Partial<Record<'ru-01' | 'ru-02', Partial<KillTarget>>>,
      string[] | undefined,
    ]
  >([
    ['no pod ended yet', 'kill', [], {}, undefined],
    ['one of two ended', 'kill', [ended('ru-01')], {}, undefined],
    [
      'both ended: succeeded, DEAD with their exit codes',
      'kill',
      [ended('ru-02'), ended('ru-01')],
      {},
      ['ru-01:DEAD 137', 'ru-02:DEAD 137'],
    ],
    [
      'a terminate completes as a kill does',
      'terminate',
      [ended('ru-01'), ended('ru-02')],
      {},
      ['ru-01:DEAD 137', 'ru-02:DEAD 137'],
    ],
    [
      'the end of another pod of a targeted uuid does not count',
      'kill',
      [ended('ru-01', 2), ended('ru-02')],
      {},
      undefined,
    ],
    [
      'an end seen before the acceptance counts',
      'kill',
      [ended('ru-02')],
      { 'ru-01': { ended: ended('ru-01') } },
      ['ru-01:DEAD 137', 'ru-02:DEAD 137'],
    ],
    [
      'an end recorded before a flush counts; the flushed process is not listed',
      'kill',
      [ended('ru-02')],
      { 'ru-01': { flushed: true } },
      ['ru-02:DEAD 137'],
    ],
  ])('%s', (_, kind, ends, targets, expected) => {
    const { kill, table } = killOf(kind, targets);
    if (targets['ru-01']?.flushed) table.forget(uuidOf('ru-01'));
    for (const end of ends) kill.offer(end, 1_000);
    const report = killCompletion(kill, table);
    if (expected === undefined) return expect(report).toBeUndefined();
    expect(report).toMatchObject({
      commandId: 'kill-1',
      commandType: CommandType[kind],
      status: 'succeeded',
      acceptedAt: 0,
    });
    expect(rows(report!.processes)).toEqual(expected);
    expect(report!.pending).toBeUndefined();
  });
});

describe('a kill still open at its deadline', () => {
  it.each<[string, ProcessTerminated[], number | undefined, string[], string[], string]>([
    [
      'nothing ended',
      [],
      undefined,
      ['ru-01', 'ru-02'],
      ['ru-01:RUNNING', 'ru-02:RUNNING'],
      '2 of 2 processes still pending after 60 s (0 ended)',
    ],
    [
      'one ended',
      [ended('ru-01')],
      undefined,
      ['ru-02'],
      ['ru-01:DEAD 137', 'ru-02:RUNNING'],
      '1 of 2 processes still pending after 60 s (1 ended)',
    ],
    [
      'one ended under a progress timeout, which moved the deadline on',
      [ended('ru-01')],
      30_000,
      ['ru-02'],
      ['ru-01:DEAD 137', 'ru-02:RUNNING'],
      '1 of 2 processes still pending after 100 s (1 ended, none ended in the last 30 s)',
    ],
  ])('%s: timed_out', (_, ends, progressTimeoutMs, pending, processes, message) => {
    const { kill, table } = killOf('kill', {}, progressTimeoutMs);
    for (const end of ends) kill.offer(end, 70_000);
    expect(killCompletion(kill, table)).toBeUndefined();
    const report = killTimedOut(kill, table);
    expect(report).toMatchObject({
      status: 'timed_out',
      pending: pending.map(uuidOf),
      errors: [{ message }],
    });
    expect(rows(report.processes)).toEqual(processes);
  });
});
