import {
  CommandType,
  type ProcessBootFailed,
  type ProcessInstance,
  type ProcessTerminated,
} from '@kpm/contracts';
import { instance, terminated, uuidOf } from '../__fixtures__/facts';
import { BootAggregate } from '../boot-aggregate';
import { ProcessTable } from '../process-table';
import { bootCompletion } from './boot';

const failed = (name: string): ProcessBootFailed => ({
  commandId: 'boot-1',
  uuid: uuidOf(name),
  name,
  session: 'run-42',
  error: { code: 'PodReadyTimeout', message: 'not Ready within 60 s' },
});
const ended = (name: string) => terminated(name, 137).data as ProcessTerminated;

type Outcome = ProcessInstance | ProcessBootFailed;
/** What the completion says: its status, `name:STATUS` per process, its error messages. */
type Expected = { status: string; processes: string[]; errors: string[] } | undefined;

describe('when a boot of ru-01 and ru-02 completes', () => {
  it.each<[string, Outcome[], ProcessTerminated[], Expected]>([
    ['no outcome yet', [], [], undefined],
    ['one process booted, one still to come', [instance('ru-01')], [], undefined],
    [
      'both booted',
      [instance('ru-02'), instance('ru-01')],
      [],
      { status: 'succeeded', processes: ['ru-01:RUNNING', 'ru-02:RUNNING'], errors: [] },
    ],
    [
      'a duplicate outcome does not settle the other process',
      [instance('ru-01'), instance('ru-01')],
      [],
      undefined,
    ],
    [
      'one failed: failed, its error at its place in the command',
      [instance('ru-01'), failed('ru-02')],
      [],
      {
        status: 'failed',
        processes: ['ru-01:RUNNING'],
        errors: [
          'processes[1]: ru-02 (' +
            uuidOf('ru-02') +
            ') failed to boot: PodReadyTimeout: not Ready within 60 s',
        ],
      },
    ],
    [
      'both failed: no processes, an error each, in command order',
      [failed('ru-02'), failed('ru-01')],
      [],
      {
        status: 'failed',
        processes: [],
        errors: [
          `processes[0]: ru-01 (${uuidOf('ru-01')}) failed to boot: PodReadyTimeout: not Ready within 60 s`,
          `processes[1]: ru-02 (${uuidOf('ru-02')}) failed to boot: PodReadyTimeout: not Ready within 60 s`,
        ],
      },
    ],
    [
      'a process that died before completion is listed as the table knows it: DEAD',
      [instance('ru-01'), instance('ru-02')],
      [ended('ru-01')],
      { status: 'succeeded', processes: ['ru-01:DEAD', 'ru-02:RUNNING'], errors: [] },
    ],
  ])('%s', (_, outcomes, ends, expected) => {
    const boot = new BootAggregate('boot-1', 'run-42', 0, [
      { uuid: uuidOf('ru-01'), name: 'ru-01', treeId: '1.1.1', role: 'application' },
      { uuid: uuidOf('ru-02'), name: 'ru-02', treeId: '1.1.2', role: 'application' },
    ]);
    const table = new ProcessTable();
    for (const outcome of outcomes) {
      if ('podUid' in outcome) {
        table.booted(outcome);
        boot.offerBooted(outcome);
      } else boot.offerFailed(outcome);
    }
    for (const end of ends) table.terminated(end);
    const report = bootCompletion(boot, table);
    expect(
      report && {
        status: report.status,
        processes: report.processes.map((p) => `${p.description.metadata.name}:${p.statusCode}`),
        errors: (report.errors ?? []).map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)),
      },
    ).toEqual(expected);
    if (report)
      expect(report).toMatchObject({ commandId: 'boot-1', commandType: CommandType.boot });
  });
});
