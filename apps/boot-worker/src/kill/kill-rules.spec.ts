import type { V1Pod } from '@kubernetes/client-node';
import { shutdownStages, type Role } from '@kpm/contracts';
import { KpmLabels } from '@kpm/kube';
import { planKill, uuidStages } from './kill-plan';
import { processPodOf, type ProcessPod } from '../cluster/process-pod';
import { describeMatches, otherSessions, resolveQuery } from './query-resolver';

const labels = new KpmLabels('drunc.daq');

/** The roles drunc gives these tree ids when the controllers run drunc-controller. */
const ROLE_OF: Record<string, Role> = {
  '0': 'root-controller',
  '1': 'infrastructure-applications',
  '0.1': 'segment-controller',
  '0.1.1': 'application',
  '0.1.2': 'application',
};

function podOf(name: string, session: string, treeId?: string, user = 'alice'): V1Pod {
  return {
    metadata: {
      name,
      namespace: session,
      labels: {
        'creator.drunc.daq': 'kpm',
        'uuid.drunc.daq': `uuid-${session}-${name}`,
        'user.drunc.daq': user,
        ...(treeId ? { 'tree-id.drunc.daq': treeId, 'role.drunc.daq': ROLE_OF[treeId] } : {}),
      },
      annotations: { 'drunc.daq/command-id': 'cmd-boot' },
    },
  };
}

const processes: ProcessPod[] = [
  podOf('root', 'run-7', '0'),
  podOf('lcs', 'run-7', '1'),
  podOf('seg-ctrl', 'run-7', '0.1'),
  podOf('ru-01', 'run-7', '0.1.1'),
  podOf('ru-02', 'run-7', '0.1.2'),
  podOf('mystery', 'run-7'),
  podOf('ru-01', 'run-8', '0.1.1', 'bob'),
].map((pod) => processPodOf(pod, labels)!);

const names = (selected: ProcessPod[]) => selected.map((p) => `${p.session}/${p.name}`);

describe('processPodOf', () => {
  it('reads uuid, session, user, role, tree id and command from the labels', () => {
    expect(processes[3]).toMatchObject({
      uuid: 'uuid-run-7-ru-01',
      name: 'ru-01',
      session: 'run-7',
      user: 'alice',
      role: 'application',
      treeId: '0.1.1',
      commandId: 'cmd-boot',
    });
    expect(processes[5].role).toBe('unknown');
  });

  it("ignores pods that are not kpm's", () => {
    const foreign = podOf('x', 'run-7');
    foreign.metadata!.labels!['creator.drunc.daq'] = 'someone';
    expect(processPodOf(foreign, labels)).toBeUndefined();
  });
});

// The matching rules themselves are the contract's (process-query-match.spec.ts); these check
// that pods are read through them, in the order messages name them.
describe('resolveQuery', () => {
  it('selects pods by the labels they carry, ordered by session and name', () => {
    expect(names(resolveQuery({ names: ['ru-0'] }, processes))).toEqual([
      'run-7/ru-01',
      'run-7/ru-02',
      'run-8/ru-01',
    ]);
    expect(names(resolveQuery({ names: ['ru-01'], user: 'alice' }, processes))).toEqual([
      'run-7/ru-01',
    ]);
    expect(
      names(resolveQuery({ uuids: ['uuid-run-8-ru-01', 'uuid-run-7-root'] }, processes)),
    ).toEqual(['run-7/root', 'run-8/ru-01']);
    expect(describeMatches(resolveQuery({ session: 'run-8' }, processes))).toBe('ru-01 (run-8)');
  });
});

describe('planKill', () => {
  const timing = { gracePeriodSeconds: 30, escalationMarginSeconds: 5, forcedKillWaitSeconds: 15 };

  it("orders stages like drunc's shutdown and agrees with the contract's shutdownStages", () => {
    const session = resolveQuery({ session: 'run-7' }, processes);
    const plan = planKill(session, timing);
    expect(plan.stages.map((stage) => stage.map((p) => p.name))).toEqual([
      ['mystery'],
      ['ru-01', 'ru-02'],
      ['seg-ctrl'],
      ['root'],
      ['lcs'],
    ]);
    expect(uuidStages(plan)).toEqual(shutdownStages(session));
  });

  it('kills segment controllers one depth at a time, deepest first, as drunc does', () => {
    const tree = [
      podOf('root', 'run-9', '0'),
      podOf('seg-a', 'run-9', '0.0'),
      podOf('seg-b', 'run-9', '0.1'),
      podOf('seg-a1', 'run-9', '0.0.0'),
      podOf('seg-a1x', 'run-9', '0.0.0.0'),
    ].map((pod) => {
      const p = processPodOf(pod, labels)!;
      return p.name === 'root' ? p : { ...p, role: 'segment-controller' as const };
    });
    const plan = planKill(tree, timing);
    expect(plan.stages.map((stage) => stage.map((p) => p.name))).toEqual([
      ['seg-a1x'],
      ['seg-a1'],
      ['seg-a', 'seg-b'],
      ['root'],
    ]);
    expect(uuidStages(plan)).toEqual(shutdownStages(tree));
    expect(plan.timeoutSeconds).toBe(4 * 50); // one grace, margin and forced wait per stage
  });

  it('bounds the command by one grace, margin and forced wait per stage unless told', () => {
    const plan = planKill(resolveQuery({ names: ['ru-'] }, processes), timing);
    expect(plan.timeoutSeconds).toBe(50);
    expect(planKill([], timing).timeoutSeconds).toBe(50);
    expect(planKill([], timing, 7).timeoutSeconds).toBe(7);
  });

  it('kills each uuid once', () => {
    expect(uuidStages(planKill([processes[3], processes[3]], timing))).toEqual([
      ['uuid-run-7-ru-01'],
    ]);
  });
});

describe('otherSessions (a command acts on its subject’s session)', () => {
  it.each<[string, string[], string, string | undefined]>([
    ['all of the subject’s session', ['run-7/ru-01', 'run-7/ru-02'], 'run-7', undefined],
    ['nothing selected', [], 'run-7', undefined],
    [
      'one of another session',
      ['run-7/ru-01', 'run-8/ru-01'],
      'run-7',
      'selects processes of other sessions than the command\'s subject "run-7": ru-01 (run-8); a command acts on one session, send one per session',
    ],
  ])('%s', (_, selected, subject, message) => {
    const pods = processes.filter((p) => selected.includes(`${p.session}/${p.name}`));
    expect(otherSessions(pods, subject)).toEqual(
      message === undefined ? undefined : { path: 'query', message },
    );
  });
});
