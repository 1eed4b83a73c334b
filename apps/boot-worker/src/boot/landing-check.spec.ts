import type { NodeVerdict } from '@kpm/kube';
import { landingRefusals, namedHosts, type LandingView } from './landing-check';
import type { PlannedProcess } from './planned-process';

const process = (index: number, name: string, hosts?: string[]): PlannedProcess => ({
  index,
  uuid: `u-${index}`,
  spec: {
    uuid: `u-${index}`,
    name,
    executableAndArguments: [{ exec: 'daq_application', args: [] }],
    ...(hosts ? { restriction: { allowedHosts: hosts } } : {}),
  },
  role: 'application',
});

const verdict = (name: string, reason?: string): NodeVerdict =>
  reason ? { name, usable: false, reason } : { name, usable: true };

const view = (verdicts: NodeVerdict[], anyUsableNode = true): LandingView => ({
  verdicts: new Map(verdicts.map((v) => [v.name, v])),
  anyUsableNode,
  summary: 'n1 (cordoned), n2 (not ready)',
});

describe('landingRefusals', () => {
  const nodes = [verdict('n1'), verdict('n2', 'cordoned'), verdict('n3', 'not ready')];

  it.each([
    ['an allowed host usable', ['n1'], undefined],
    ['the first host cordoned, the second usable', ['n2', 'n1'], undefined],
    [
      'every host unusable',
      ['n2', 'n3'],
      'no allowed host is Ready and schedulable: n2 (cordoned), n3 (not ready)',
    ],
    [
      'a host not in the cluster',
      ['n9'],
      'no allowed host is Ready and schedulable: n9 (not part of the cluster)',
    ],
    ['no host named, some node usable', undefined, undefined],
  ])('%s', (_, hosts, why) => {
    const errors = landingRefusals([process(0, 'ru-01', hosts)], view(nodes));
    expect(errors.map((e) => e.message)).toEqual(
      why
        ? [
            'the boot is all-or-nothing and 1 of 1 processes cannot land: nothing was created',
            `"ru-01" cannot land: ${why}`,
          ]
        : [],
    );
  });

  it('names every process that cannot land, at its index, after one line that says what happened', () => {
    const processes = [
      process(0, 'root', ['n1']),
      process(1, 'ru-01', ['n2']),
      process(2, 'ru-02', ['n2']),
      process(3, 'df-01'),
    ];
    const errors = landingRefusals(processes, view(nodes, false));
    expect(errors).toEqual([
      {
        path: 'allOrNothing',
        message: 'the boot is all-or-nothing and 3 of 4 processes cannot land: nothing was created',
      },
      {
        path: 'processes[1]',
        message: '"ru-01" cannot land: no allowed host is Ready and schedulable: n2 (cordoned)',
      },
      {
        path: 'processes[2]',
        message: '"ru-02" cannot land: no allowed host is Ready and schedulable: n2 (cordoned)',
      },
      {
        path: 'processes[3]',
        message:
          '"df-01" cannot land: no node is Ready and schedulable: n1 (cordoned), n2 (not ready)',
      },
    ]);
  });

  it('asks for the verdict of each named host once', () => {
    const processes = [process(0, 'a', ['n1', 'n2']), process(1, 'b', ['n2']), process(2, 'c')];
    expect(namedHosts(processes)).toEqual(['n1', 'n2']);
  });
});
