/** Human output: plain text for pipes, colour for terminals, the same facts in both. */
import pc from 'picocolors';
import type { AutomaticAction } from '@kpm/contracts';
import {
  EXAMPLE_EVENTS,
  CompletionType,
  ProcessEventType,
  TerminationType,
  type ProcessInstance,
} from '@kpm/contracts';
import { formatCompletion } from './completion-view';
import { formatEventLine } from './event-line';
import { formatProcessTable, liveText, withLiveness } from './process-table';
import { formatProgress } from './progress-bar';

const plain = pc.createColors(false);
const colour = pc.createColors(true);
const running = EXAMPLE_EVENTS[ProcessEventType.processBooted].data.process;

function process(
  name: string,
  treeId: string | undefined,
  extra: Partial<ProcessInstance> = {},
): ProcessInstance {
  const role: ProcessInstance['role'] =
    treeId === '0' ? 'root-controller' : treeId?.includes('.') ? 'application' : 'unknown';
  return {
    ...running,
    uuid: `00000000-0000-4000-8000-${name.padStart(12, '0').slice(-12)}`,
    description: {
      ...running.description,
      metadata: { ...running.description.metadata, name, treeId },
    },
    podName: name,
    role,
    ...extra,
  };
}

describe('ps --live', () => {
  it.each<
    [string, Partial<ProcessInstance>, { alive: boolean; phase: string } | undefined, string]
  >([
    ['a RUNNING row whose pod is Running', {}, { alive: true, phase: 'Running' }, 'Running'],
    ['a RUNNING row whose pod is gone', {}, { alive: false, phase: 'Gone' }, 'Gone'],
    [
      'a DEAD row whose pod failed',
      { statusCode: 'DEAD' },
      { alive: false, phase: 'Failed' },
      'Failed',
    ],
    ['a row the cluster was not asked about', {}, undefined, '-'],
  ])('%s: %s', (_, extra, live, text) => {
    const [p] = withLiveness(
      [process('ru-01', '0.1.1', extra)],
      new Map(live ? [[`00000000-0000-4000-8000-0000000ru-01`, live]] : []),
    );
    expect(liveText(p, plain)).toBe(text);
  });

  it('colours the disagreement: a RUNNING row whose pod is not Running is red', () => {
    const [gone] = withLiveness(
      [process('ru-01', '0.1.1')],
      new Map([[`00000000-0000-4000-8000-0000000ru-01`, { alive: false, phase: 'Gone' }]]),
    );
    expect(liveText(gone, colour)).toBe(colour.red('Gone'));
    const [dead] = withLiveness(
      [process('ru-01', '0.1.1', { statusCode: 'DEAD' })],
      new Map([[`00000000-0000-4000-8000-0000000ru-01`, { alive: false, phase: 'Gone' }]]),
    );
    expect(liveText(dead, colour)).toBe(colour.dim('Gone'));
  });

  it("shows the live column after the table's status", () => {
    const [p] = withLiveness(
      [process('root', '0')],
      new Map([[`00000000-0000-4000-8000-00000000root`, { alive: true, phase: 'Running' }]]),
    );
    const text = formatProcessTable([p], plain, ['name', 'status', 'live']);
    expect(text).toMatch(/root\s*│ RUNNING\s*│ Running/);
  });
});

describe('process table', () => {
  const processes = [
    process('ru-02', '0.1.2', { statusCode: 'DEAD', returnCode: 143, reason: 'Error' }),
    process('root', '0'),
    process('ru-01', '0.1.1', { statusCode: 'DEAD', returnCode: 0, reason: 'Completed' }),
    process('stray', undefined),
  ];

  it('lists processes in tree order with exit codes, plain when not a terminal', () => {
    const text = formatProcessTable(processes, plain, ['name', 'tree', 'status', 'exit', 'reason']);
    const rows = text.split('\n').filter((l) => /ru-|root|stray/.test(l));
    expect(
      rows.map((r) =>
        r
          .split('│')
          .map((c) => c.trim())
          .filter(Boolean),
      ),
    ).toEqual([
      ['root', '0', 'RUNNING', '-', '-'],
      ['ru-01', '0.1.1', 'DEAD', '0', 'Completed'],
      ['ru-02', '0.1.2', 'DEAD', '143', 'Error'],
      ['stray', '-', 'RUNNING', '-', '-'],
    ]);
    expect(text).not.toMatch(/\x1b\[/); // eslint-disable-line no-control-regex
  });

  it('colours status and exit codes on a terminal', () => {
    const text = formatProcessTable(processes, colour, ['name', 'status', 'exit']);
    expect(text).toContain(colour.green('RUNNING'));
    expect(text).toContain(colour.red('143'));
    expect(text).toContain(colour.green('0'));
  });

  it('says so when there is nothing to list', () => {
    expect(formatProcessTable([], plain)).toBe('no processes');
  });

  it("shows each pod's name beside drunc's name when one differs", () => {
    const dummy = process('dummy_boot_0', '0.1', { podName: 'dummy-boot-0-1a2b3c4d' });
    const cells = (text: string) =>
      text
        .split('\n')
        .filter((l) => /ru-|dummy|name/.test(l))
        .map((r) =>
          r
            .split('│')
            .map((c) => c.trim())
            .filter(Boolean),
        );
    expect(cells(formatProcessTable([dummy, processes[2]], plain, ['name', 'status']))).toEqual([
      ['name', 'pod', 'status'],
      ['dummy_boot_0', 'dummy-boot-0-1a2b3c4d', 'RUNNING'],
      ['ru-01', 'ru-01', 'DEAD'],
    ]);
    expect(cells(formatProcessTable([processes[2]], plain, ['name', 'status']))).toEqual([
      ['name', 'status'],
      ['ru-01', 'DEAD'],
    ]);
  });
});

describe('ps: automatic restarts under an exit policy', () => {
  const step = (outcome: AutomaticAction['outcome'], extra: Partial<AutomaticAction> = {}) => ({
    decidedBy: 'state',
    decidedAt: '2026-01-01T00:00:00.000Z',
    uuid: 'u',
    podUid: 'p',
    exitCode: 3,
    reason: 'Error',
    action: 'Restart' as const,
    outcome,
    message: '',
    ...extra,
  });
  let row = 0;
  const restarted = (restarts: number, last: AutomaticAction) =>
    process(`ru-0${++row}`, '0.1.1', {
      automatic: { restarts, recentRestarts: [], last },
    });

  it('adds a restarts column after reason, saying what waits or what was spent', () => {
    const rows = [
      process('root', '0'),
      restarted(2, step('issued')),
      restarted(1, step('scheduled', { attempt: 2, of: 3, dueAt: '2026-01-01T00:00:20.000Z' })),
      restarted(3, step('exhausted')),
      restarted(0, step('cancelled')),
    ];
    const text = formatProcessTable(rows, plain, ['name', 'reason']);
    const cells = text
      .split('\n')
      .filter((l) => /name|ru-|root/.test(l))
      .map((r) =>
        r
          .split('│')
          .map((c) => c.trim())
          .filter(Boolean),
      );
    expect(cells.map((c) => c.slice(1))).toEqual([
      ['reason', 'restarts'],
      ['-', '-'],
      ['-', '2'],
      ['-', '1 (2/3 due 00:00:20)'],
      ['-', '3 (budget spent)'],
      ['-', '0 (cancelled)'],
    ]);
    expect(formatProcessTable([process('root', '0')], plain, ['name', 'reason'])).not.toContain(
      'restarts',
    );
  });
});

describe('completion', () => {
  const completion = EXAMPLE_EVENTS[CompletionType.commandCompleted].data;

  it('heads the table with command, id, outcome, duration and session', () => {
    const text = formatCompletion(
      { ...completion, commandType: 'daq.kpm.command.kill.v1', commandId: 'k-1', durationMs: 2345 },
      plain,
      ['name', 'exit'],
    );
    expect(text.split('\n')[0]).toBe(`kill k-1 succeeded in 2.3 s (session ${completion.session})`);
    expect(text).toContain('ru-01');
  });

  it('lists errors and pending processes of a command that did not succeed', () => {
    const text = formatCompletion(
      {
        ...completion,
        status: 'timed_out',
        processes: [],
        pending: ['u-1', 'u-2'],
        errors: [{ path: 'query.names[0]', message: 'bad' }, { message: 'also bad' }],
      },
      plain,
    );
    expect(text).toContain(' timed out in ');
    expect(text).toContain('✗ query.names[0]: bad');
    expect(text).toContain('✗ also bad');
    expect(text).toContain('still pending: u-1, u-2');
  });
});

describe('event lines', () => {
  it('says when, which session and what for a termination', () => {
    const event = EXAMPLE_EVENTS[TerminationType.processTerminated];
    const line = formatEventLine(event, plain);
    expect(line).toBe(
      `${event.time!.slice(11, 23)} ${event.subject} ${event.data.name} terminated: exit ${event.data.exitCode} (${event.data.reason}${event.data.signal === undefined ? '' : `, signal ${event.data.signal}`})`,
    );
  });

  it('describes every kind of event without throwing', () => {
    for (const event of Object.values(EXAMPLE_EVENTS)) {
      expect(formatEventLine(event, plain).length).toBeGreaterThan(20);
    }
  });

  it('shows the shutdown stages of a kill', () => {
    const event = EXAMPLE_EVENTS[ProcessEventType.killAccepted];
    expect(formatEventLine(event, plain)).toMatch(
      /accepted: [\d →]+ process\(es\) in \d stage\(s\)/,
    );
  });
});

describe('progress bar', () => {
  it('fills in proportion and counts failures', () => {
    expect(formatProgress({ label: 'booted', done: 5, failed: 1, total: 10 }, plain, 10)).toBe(
      'booted  [█████░░░░░]  5/10  1 failed',
    );
    expect(formatProgress({ label: 'terminated', done: 0, failed: 0 }, plain)).toBe(
      'terminated  0…',
    );
  });
});
