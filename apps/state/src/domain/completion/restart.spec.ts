import { CommandType, type ProcessBootFailed, type ProcessTerminated } from '@kpm/contracts';
import { instance, podOf, terminated, uuidOf } from '../__fixtures__/facts';
import { KillAggregate } from '../kill-aggregate';
import { ProcessTable } from '../process-table';
import { restartCompletion, restartTimedOut } from './restart';

/** What happens to a process of the restart: its old pod ends, it is back, or it failed to boot. */
type Step = ['end' | 'back' | 'fail', string];

const failure = (name: string): ProcessBootFailed => ({
  commandId: 'restart-1',
  uuid: uuidOf(name),
  name,
  session: 'run-42',
  error: { code: 'PodReadyTimeout', message: 'not Ready within 60 s' },
});
const failedAgain = (name: string) =>
  `${name} (${uuidOf(name)}) was stopped but failed to boot again: PodReadyTimeout: not Ready within 60 s`;

/** A restart of `names` (their first pods), accepted at 0 with a 60 s bound, after `steps`. */
function restartAfter(steps: Step[], names = ['ru-01', 'ru-02']) {
  const table = new ProcessTable();
  for (const name of names) table.booted(instance(name));
  const kill = new KillAggregate(
    'restart-1',
    'restart',
    'run-42',
    0,
    { timeoutMs: 60_000 },
    names.map((name) => ({ uuid: uuidOf(name), podUid: podOf(name) })),
  );
  for (const [step, name] of steps) {
    if (step === 'end') kill.offer(terminated(name, 143).data as ProcessTerminated, 1_000);
    if (step === 'back') {
      table.booted(instance(name, 2));
      kill.rebooted({ instance: instance(name, 2) });
    }
    if (step === 'fail') kill.rebooted({ failure: failure(name) });
  }
  return { kill, table };
}

/** `name:STATUS life` per process. */
const listed = (processes: { uuid: string; podUid: string; statusCode: string }[]) =>
  processes.map((p) => {
    const name = ['ru-01', 'ru-02'].find((n) => uuidOf(n) === p.uuid);
    return `${name}:${p.statusCode} ${p.podUid === podOf(name ?? '', 2) ? 'new' : 'old'}`;
  });

describe('when a restart of ru-01 and ru-02 completes', () => {
  it.each<
    [
      string,
      Step[],
      { status: string; processes: string[]; errors?: string[]; pending?: string[] } | undefined,
    ]
  >([
    ['nothing yet', [], undefined],
    [
      'both old pods ended, none back yet',
      [
        ['end', 'ru-01'],
        ['end', 'ru-02'],
      ],
      undefined,
    ],
    [
      'both back, but an old pod has not ended',
      [
        ['back', 'ru-01'],
        ['back', 'ru-02'],
        ['end', 'ru-01'],
      ],
      undefined,
    ],
    [
      'each old pod ended and each back (a new pod may come first): succeeded, the new instances',
      [
        ['back', 'ru-02'],
        ['end', 'ru-01'],
        ['end', 'ru-02'],
        ['back', 'ru-01'],
      ],
      { status: 'succeeded', processes: ['ru-01:RUNNING new', 'ru-02:RUNNING new'] },
    ],
    [
      'a failed reboot settles its process though its old pod never ended: failed, that pod pending',
      [
        ['end', 'ru-01'],
        ['back', 'ru-01'],
        ['fail', 'ru-02'],
      ],
      {
        status: 'failed',
        processes: ['ru-01:RUNNING new'],
        errors: [failedAgain('ru-02')],
        pending: ['ru-02'],
      },
    ],
    [
      'a failed reboot after its old pod ended: failed, nothing pending',
      [
        ['end', 'ru-01'],
        ['end', 'ru-02'],
        ['fail', 'ru-01'],
        ['back', 'ru-02'],
      ],
      { status: 'failed', processes: ['ru-02:RUNNING new'], errors: [failedAgain('ru-01')] },
    ],
  ])('%s', (_, steps, expected) => {
    const { kill, table } = restartAfter(steps);
    const report = restartCompletion(kill, table);
    if (expected === undefined) return expect(report).toBeUndefined();
    expect(report).toMatchObject({
      commandId: 'restart-1',
      commandType: CommandType.restart,
      status: expected.status,
      acceptedAt: 0,
    });
    expect(listed(report!.processes)).toEqual(expected.processes);
    expect(report!.errors?.map((e) => e.message)).toEqual(expected.errors);
    expect(report!.pending).toEqual(expected.pending?.map(uuidOf));
  });
});

describe('a restart still open at its deadline', () => {
  it.each<[string, Step[], string[], string[], string[], string]>([
    [
      'no old pod ended',
      [],
      ['ru-01', 'ru-02'],
      [],
      ['ru-01', 'ru-02'],
      '2 of 2 processes still pending after 60 s (0 ended)',
    ],
    [
      'every old pod ended, one process back',
      [
        ['end', 'ru-01'],
        ['end', 'ru-02'],
        ['back', 'ru-01'],
      ],
      ['ru-01', 'ru-02'],
      ['ru-01:RUNNING new'],
      [],
      '1 of 2 processes were not booted again within 60 s',
    ],
    [
      'a one-process restart whose old pod ended, not back',
      [['end', 'ru-01']],
      ['ru-01'],
      [],
      [],
      'the process was not booted again within 60 s',
    ],
  ])('%s: timed_out', (_, steps, names, processes, pending, message) => {
    const { kill, table } = restartAfter(steps, names);
    expect(restartCompletion(kill, table)).toBeUndefined();
    const report = restartTimedOut(kill, table);
    expect(report).toMatchObject({
      status: 'timed_out',
      pending: pending.map(uuidOf),
      errors: [{ message }],
    });
    expect(listed(report.processes)).toEqual(processes);
  });
});
