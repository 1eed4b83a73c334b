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

describe('landingRefusals: fitting where it lands', () => {
  // In thousandths, as the boot checks give them (milliOf).
  const GI = 2 ** 30 * 1000;
  const CORE = 1000;
  const nodes = [verdict('n1'), verdict('n2'), verdict('n3', 'cordoned')];
  /** n1 has 8 cores and 4Gi of 1Gi hugepages free; n2 has no hugepages; n3 is cordoned. */
  const free = new Map<string, Record<string, number>>([
    ['n1', { cpu: 8 * CORE, 'hugepages-1Gi': 4 * GI }],
    ['n2', { cpu: 2 * CORE }],
  ]);
  const demands: Record<string, Record<string, number>> = {
    'runp-01': { cpu: 2 * CORE, 'hugepages-1Gi': 2 * GI },
    'runp-02': { cpu: 2 * CORE, 'hugepages-1Gi': 2 * GI },
    'runp-03': { cpu: 2 * CORE, 'hugepages-1Gi': 2 * GI },
    small: { cpu: CORE },
    big: { cpu: 4 * CORE },
  };
  const fitView: LandingView = {
    ...view(nodes),
    free,
    demand: (p) => demands[p.spec.name],
  };
  const whys = (processes: PlannedProcess[]) =>
    landingRefusals(processes, fitView).map((e) => `${e.path}: ${e.message}`);

  it('lets processes in while they fit, the earlier ones first, and names the first that does not', () => {
    expect(
      whys([
        process(0, 'runp-01', ['n1']),
        process(1, 'runp-02', ['n1']),
        process(2, 'runp-03', ['n1']),
        process(3, 'small', ['n1']),
      ]),
    ).toEqual([
      'allOrNothing: the boot is all-or-nothing and 1 of 4 processes cannot land: nothing was created',
      'processes[2]: "runp-03" cannot land: it does not fit on n1: it requests hugepages-1Gi 2Gi where 0 is free (the node\'s allocatable less what its pods and this boot\'s earlier processes request)',
    ]);
  });

  it('checks the host the placement picks: the first usable one', () => {
    expect(whys([process(0, 'big', ['n3', 'n2'])])).toEqual([
      'allOrNothing: the boot is all-or-nothing and 1 of 1 processes cannot land: nothing was created',
      'processes[0]: "big" cannot land: it does not fit on n2: it requests cpu 4 where 2 is free (the node\'s allocatable less what its pods and this boot\'s earlier processes request)',
    ]);
    expect(whys([process(0, 'runp-01', ['n2'])])[1]).toContain(
      'it requests hugepages-1Gi 2Gi where 0 is free',
    );
  });

  it('does not judge a host that tells no allocatable, nor a process that names no host', () => {
    const unknown = { ...fitView, free: new Map() };
    expect(landingRefusals([process(0, 'big', ['n1'])], unknown)).toEqual([]);
    expect(whys([process(0, 'big')])).toEqual([]);
  });
});
