import type { V1Pod } from '@kubernetes/client-node';
import { DEFAULT_FATAL_WAITING_REASONS } from '@kpm/config';
import { KpmLabels } from '@kpm/kube';
import { TerminationTracker, type TrackerAction } from './termination-tracker';

const labels = new KpmLabels('drunc.daq');
const FINALIZER = labels.terminationFinalizer;
const NOW = new Date('2026-11-22T10:00:00.000Z');

interface PodOptions {
  uid?: string;
  phase?: string;
  exitCode?: number;
  running?: boolean;
  deleting?: boolean;
  finalizers?: string[];
  ours?: boolean;
  node?: string;
}

function pod(options: PodOptions = {}): V1Pod {
  const uid = options.uid ?? 'uid-1';
  const state =
    options.exitCode !== undefined
      ? {
          terminated: {
            exitCode: options.exitCode,
            reason: options.exitCode ? 'Error' : 'Completed',
          },
        }
      : options.running
        ? { running: {} }
        : { waiting: { reason: 'ContainerCreating' } };
  return {
    metadata: {
      uid,
      name: `p-${uid}`,
      namespace: 'run-7',
      labels:
        options.ours === false
          ? { app: 'x' }
          : {
              [labels.creator]: 'kpm',
              [labels.uuid]: `11111111-1111-4111-8111-${uid.padStart(12, '0').slice(-12)}`,
              [labels.session]: 'run-7',
              [labels.user]: 'daq',
              app: 'readout',
            },
      finalizers: options.finalizers ?? [FINALIZER],
      ...(options.deleting ? { deletionTimestamp: NOW } : {}),
    },
    spec: { containers: [{ name: 'readout' }], nodeName: options.node ?? 'kpm-real-1' },
    status: {
      phase:
        options.phase ??
        (options.exitCode === undefined ? 'Running' : options.exitCode ? 'Failed' : 'Succeeded'),
      containerStatuses: [
        { name: 'readout', image: 'i', imageID: '', ready: false, restartCount: 0, state },
      ],
    },
  };
}

const tracker = () =>
  new TerminationTracker(labels, new Set(DEFAULT_FATAL_WAITING_REASONS), () => NOW);
const publishes = (actions: TrackerAction[]) =>
  actions.flatMap((a) => (a.kind === 'publish' ? [a.termination] : []));
const releases = (actions: TrackerAction[]) =>
  actions.flatMap((a) => (a.kind === 'release' ? [a.pod.metadata!.uid!] : []));

describe('TerminationTracker', () => {
  it('publishes a pod once when it ends, with identity from its labels', () => {
    const t = tracker();
    expect(t.observe('ADDED', pod({ running: true }), 'watch')).toEqual([]);
    const [termination] = publishes(t.observe('MODIFIED', pod({ exitCode: 3 }), 'watch'));
    expect(termination).toMatchObject({
      identity: {
        podUid: 'uid-1',
        podName: 'p-uid-1',
        namespace: 'run-7',
        session: 'run-7',
        user: 'daq',
        name: 'readout',
        uuid: '11111111-1111-4111-8111-0000000uid-1',
      },
      verdict: { exitCode: 3, reason: 'Error', phase: 'Failed' },
      detectedBy: 'watch',
      observedAt: NOW.toISOString(),
    });
    // Further events while the record is on its way change nothing.
    expect(t.observe('MODIFIED', pod({ exitCode: 3 }), 'watch')).toEqual([]);
    // It ended on its own: nobody asked for its deletion.
    expect(termination.deletionRequestedAt).toBeUndefined();
  });

  it('says when the deletion of a pod that ended was asked (a kill), seen live or vanished', () => {
    const t = tracker();
    t.observe('ADDED', pod({ running: true, deleting: true }), 'watch');
    const [killed] = publishes(
      t.observe('MODIFIED', pod({ exitCode: 143, deleting: true }), 'watch'),
    );
    expect(killed.deletionRequestedAt).toBe(NOW.toISOString());
    t.observe('ADDED', pod({ uid: 'uid-2', running: true, deleting: true }), 'watch');
    const [vanished] = publishes(t.resync([]));
    expect(vanished).toMatchObject({
      identity: { podUid: 'uid-2' },
      deletionRequestedAt: NOW.toISOString(),
    });
  });

  it('keeps the first terminal verdict even if statuses are rewritten before publication', () => {
    const t = tracker();
    const [first] = publishes(t.observe('MODIFIED', pod({ exitCode: 3 }), 'watch'));
    expect(t.observe('MODIFIED', pod({ exitCode: 137, deleting: true }), 'watch')).toEqual([]);
    expect(first.verdict.exitCode).toBe(3);
  });

  it('releases the finalizer only after Kafka acknowledged, then forgets the pod when deleted', () => {
    const t = tracker();
    const actions = t.observe('MODIFIED', pod({ exitCode: 0 }), 'watch');
    expect(releases(actions)).toEqual([]);
    expect(releases(t.published(['uid-1']))).toEqual(['uid-1']);
    // A second event while the release is in flight does not release twice.
    expect(t.observe('MODIFIED', pod({ exitCode: 0, deleting: true }), 'watch')).toEqual([]);
    t.released('uid-1', true);
    expect(t.counts()).toEqual({ watching: 0, publishing: 0, recorded: 1 });
    expect(t.observe('DELETED', pod({ exitCode: 0, finalizers: [] }), 'watch')).toEqual([]);
    expect(t.counts()).toEqual({ watching: 0, publishing: 0, recorded: 0 });
  });

  it('retries a failed release on the next event of the pod', () => {
    const t = tracker();
    t.observe('MODIFIED', pod({ exitCode: 1 }), 'watch');
    expect(releases(t.published(['uid-1']))).toEqual(['uid-1']);
    t.released('uid-1', false);
    expect(releases(t.observe('MODIFIED', pod({ exitCode: 1, deleting: true }), 'watch'))).toEqual([
      'uid-1',
    ]);
  });

  it('offers owed releases to the periodic reconcile', () => {
    const t = tracker();
    t.observe('MODIFIED', pod({ exitCode: 1 }), 'watch');
    t.published(['uid-1']);
    expect(releases(t.pendingReleases())).toEqual([]); // in flight
    t.released('uid-1', false);
    expect(releases(t.pendingReleases())).toEqual(['uid-1']);
  });

  it('does not release a finalizer the pod no longer holds', () => {
    const t = tracker();
    t.observe('ADDED', pod({ running: true, finalizers: [] }), 'watch');
    expect(
      publishes(t.observe('MODIFIED', pod({ exitCode: 0, finalizers: [] }), 'watch')),
    ).toHaveLength(1);
    expect(t.published(['uid-1'])).toEqual([]);
  });

  it('takes a pod first seen ended and released as recorded before (no re-publication after a restart)', () => {
    const t = tracker();
    expect(
      t.resync([
        pod({ uid: 'old', exitCode: 3, finalizers: [] }),
        pod({ uid: 'held', exitCode: 3 }),
      ]),
    ).toMatchObject([{ kind: 'publish', termination: { identity: { podUid: 'held' } } }]);
    expect(t.counts()).toEqual({ watching: 0, publishing: 1, recorded: 1 });
    expect(t.observe('DELETED', pod({ uid: 'old', exitCode: 3, finalizers: [] }), 'watch')).toEqual(
      [],
    );
    expect(t.counts()).toEqual({ watching: 0, publishing: 1, recorded: 0 });
  });

  it('publishes a pod deleted without its finalizer from the DELETED event and forgets it after the ack', () => {
    const t = tracker();
    t.observe('ADDED', pod({ running: true, finalizers: [] }), 'watch');
    const [termination] = publishes(
      t.observe('DELETED', pod({ running: true, finalizers: [] }), 'watch'),
    );
    expect(termination.verdict).toMatchObject({ exitCode: -1, reason: 'PodDeleted' });
    expect(t.published(['uid-1'])).toEqual([]);
    expect(t.counts()).toEqual({ watching: 0, publishing: 0, recorded: 0 });
  });

  it('de-duplicates by pod uid: a restarted process (same uuid, new uid) ends again', () => {
    const t = tracker();
    const first = publishes(t.observe('MODIFIED', pod({ uid: 'a', exitCode: 143 }), 'watch'));
    const again = publishes(t.observe('MODIFIED', pod({ uid: 'a', exitCode: 143 }), 'watch'));
    const restarted = publishes(t.observe('MODIFIED', pod({ uid: 'b', exitCode: 0 }), 'watch'));
    expect(first).toHaveLength(1);
    expect(again).toHaveLength(0);
    expect(restarted.map((x) => x.identity.podUid)).toEqual(['b']);
  });

  it('ignores pods without kpm creator label or uid', () => {
    const t = tracker();
    expect(t.observe('MODIFIED', pod({ exitCode: 1, ours: false }), 'watch')).toEqual([]);
    const anonymous = pod({ exitCode: 1 });
    delete anonymous.metadata!.uid;
    expect(t.observe('MODIFIED', anonymous, 'watch')).toEqual([]);
  });

  it('publishes terminal pods found by a re-list as detected by reconcile', () => {
    const t = tracker();
    const actions = t.resync([pod({ uid: 'a', exitCode: 2 }), pod({ uid: 'b', running: true })]);
    expect(publishes(actions).map((x) => [x.identity.podUid, x.detectedBy])).toEqual([
      ['a', 'reconcile'],
    ]);
  });

  it('reports a known pod missing from a re-list as -1 PodDeleted by reconcile, once', () => {
    const t = tracker();
    t.observe('ADDED', pod({ uid: 'a', running: true }), 'watch');
    t.observe('ADDED', pod({ uid: 'b', running: true }), 'watch');
    const [vanished, ...rest] = publishes(t.resync([pod({ uid: 'b', running: true })]));
    expect(rest).toEqual([]);
    expect(vanished).toMatchObject({
      identity: { podUid: 'a' },
      verdict: { exitCode: -1, reason: 'PodDeleted', phase: 'Running' },
      detectedBy: 'reconcile',
    });
    expect(publishes(t.resync([pod({ uid: 'b', running: true })]))).toEqual([]);
    expect(t.published(['a'])).toEqual([]);
    expect(t.counts()).toEqual({ watching: 1, publishing: 0, recorded: 0 });
  });

  it('ends a pod failing to pull its image only after imagePullGraceSeconds, at the next sight', () => {
    let clock = NOW;
    const t = new TerminationTracker(
      labels,
      new Set(DEFAULT_FATAL_WAITING_REASONS),
      () => clock,
      60,
    );
    const pulling = (reason: string): V1Pod => {
      const p = pod({ uid: 'pull', phase: 'Pending' });
      p.status!.startTime = new Date(NOW.getTime() - 10_000);
      p.status!.containerStatuses![0].state = { waiting: { reason } };
      return p;
    };
    expect(t.observe('MODIFIED', pulling('ErrImagePull'), 'watch')).toEqual([]);
    clock = new Date(NOW.getTime() + 49_000);
    expect(t.observe('MODIFIED', pulling('ImagePullBackOff'), 'watch')).toEqual([]);
    clock = new Date(NOW.getTime() + 50_000);
    expect(publishes(t.resync([pulling('ImagePullBackOff')]))).toMatchObject([
      { verdict: { exitCode: -1, reason: 'ImagePullBackOff' }, detectedBy: 'reconcile' },
    ]);
    const invalid = pod({ uid: 'bad-name', phase: 'Pending' });
    invalid.status!.containerStatuses![0].state = { waiting: { reason: 'InvalidImageName' } };
    expect(publishes(t.observe('ADDED', invalid, 'watch'))).toMatchObject([
      { verdict: { reason: 'InvalidImageName' } },
    ]);
  });

  describe('expected pods (the process table shows them RUNNING)', () => {
    const expected = (uid: string) => ({
      podUid: uid,
      namespace: 'run-7',
      podName: `p-${uid}`,
      uuid: `uuid-${uid}`,
      session: 'run-7',
      name: 'readout',
      user: 'daq',
    });

    it('reports one missing from the first list as -1 PodDeleted by reconcile, once', () => {
      const t = tracker();
      t.expect([expected('gone'), expected('here')]);
      const actions = t.resync([pod({ uid: 'here', running: true })]);
      expect(publishes(actions)).toEqual([
        {
          identity: expected('gone'),
          verdict: { terminal: true, exitCode: -1, reason: 'PodDeleted', phase: 'Unknown' },
          detectedBy: 'reconcile',
          observedAt: NOW.toISOString(),
        },
      ]);
      expect(t.published(['gone'])).toEqual([]);
      expect(publishes(t.resync([pod({ uid: 'here', running: true })]))).toEqual([]);
      expect(t.counts()).toEqual({ watching: 1, publishing: 0, recorded: 0 });
    });

    it('publishes one listed as ended without the finalizer (the table never heard of its end)', () => {
      const t = tracker();
      t.expect([expected('ended')]);
      const listed = pod({ uid: 'ended', exitCode: 0, finalizers: [] });
      expect(publishes(t.resync([listed]))).toMatchObject([
        { identity: { podUid: 'ended' }, verdict: { exitCode: 0 }, detectedBy: 'reconcile' },
      ]);
    });

    it('still skips an ended pod without the finalizer that the table does not show', () => {
      const t = tracker();
      t.expect([expected('other')]);
      const listed = pod({ uid: 'old', exitCode: 0, finalizers: [] });
      expect(publishes(t.resync([listed, pod({ uid: 'other', running: true })]))).toEqual([]);
    });

    it('leaves pods it already knows as they are', () => {
      const t = tracker();
      t.observe('ADDED', pod({ uid: 'a', running: true }), 'watch');
      t.expect([{ ...expected('a'), name: 'from-table' }]);
      const [vanished] = publishes(t.resync([]));
      expect(vanished).toMatchObject({ identity: { podUid: 'a', name: 'readout' } });
    });
  });

  it('forgets recorded pods missing from a re-list and keeps in-flight ones without re-publishing', () => {
    const t = tracker();
    t.observe('MODIFIED', pod({ uid: 'done', exitCode: 0 }), 'watch');
    t.published(['done']);
    t.observe('MODIFIED', pod({ uid: 'flying', exitCode: 1 }), 'watch');
    expect(t.resync([])).toEqual([]);
    expect(t.counts()).toEqual({ watching: 0, publishing: 1, recorded: 0 });
    expect(t.published(['flying'])).toEqual([]); // gone: nothing to release
  });

  it('releases a recorded pod that still holds the finalizer when a re-list shows it (after a failed release)', () => {
    const t = tracker();
    t.observe('MODIFIED', pod({ exitCode: 0 }), 'watch');
    t.published(['uid-1']);
    t.released('uid-1', false);
    expect(releases(t.resync([pod({ exitCode: 0 })]))).toEqual(['uid-1']);
  });

  it('resumes a continued term: re-publishes what was in flight and owes releases again', () => {
    const t = tracker();
    const [first] = publishes(t.observe('MODIFIED', pod({ uid: 'a', exitCode: 3 }), 'watch'));
    t.observe('MODIFIED', pod({ uid: 'b', exitCode: 0 }), 'watch');
    expect(releases(t.published(['b']))).toEqual(['b']);
    // The term stopped with a's record unacknowledged and b's release in flight.
    const actions = t.resume();
    expect(publishes(actions)).toEqual([first]);
    expect(releases(t.pendingReleases())).toEqual(['b']);
    // A known pod that vanished while nobody watched is still recognised after the new list.
    t.observe('ADDED', pod({ uid: 'c', running: true }), 'watch');
    expect(
      publishes(t.resync([pod({ uid: 'a', exitCode: 3 }), pod({ uid: 'b', exitCode: 0 })])),
    ).toMatchObject([{ identity: { podUid: 'c' }, verdict: { reason: 'PodDeleted' } }]);
  });

  it('ignores acks for unknown or already recorded uids', () => {
    const t = tracker();
    expect(t.published(['nobody'])).toEqual([]);
    t.observe('MODIFIED', pod({ exitCode: 0 }), 'watch');
    t.published(['uid-1']);
    expect(t.published(['uid-1'])).toEqual([]);
    t.released('nobody', true);
  });

  describe('a lost node', () => {
    const loss = {
      node: 'kpm-real-1',
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
    };
    const lost = new Map([[loss.node, loss]]);

    it('ends a pod being deleted there NodeLost when told the node is lost, once', () => {
      const t = tracker();
      expect(t.observe('ADDED', pod({ uid: 'a', running: true }), 'watch')).toEqual([]);
      // A kill (or the taint's eviction) asks the deletion; the stale "running" keeps it open.
      expect(
        t.observe('MODIFIED', pod({ uid: 'a', running: true, deleting: true }), 'watch'),
      ).toEqual([]);
      expect(t.observe('ADDED', pod({ uid: 'b', running: true }), 'watch')).toEqual([]);
      const ended = publishes(t.nodes(lost));
      expect(ended.map((e) => [e.identity.podUid, e.verdict.exitCode, e.verdict.reason])).toEqual([
        ['a', -1, 'NodeLost'],
      ]);
      expect(ended[0].deletionRequestedAt).toBe(NOW.toISOString());
      // Told again: nothing new; b is not being deleted (its toleration runs).
      expect(t.nodes(lost)).toEqual([]);
    });

    it('ends a pod whose deletion comes after the loss at once', () => {
      const t = tracker();
      t.observe('ADDED', pod({ uid: 'a', running: true }), 'watch');
      expect(t.nodes(lost)).toEqual([]);
      const evicted = t.observe(
        'MODIFIED',
        pod({ uid: 'a', running: true, deleting: true }),
        'watch',
      );
      expect(publishes(evicted).map((e) => e.verdict.reason)).toEqual(['NodeLost']);
    });

    it('leaves pods on other nodes, and a node back again, to their kubelets', () => {
      const t = tracker();
      t.observe(
        'ADDED',
        pod({ uid: 'a', running: true, deleting: true, node: 'kpm-node-1' }),
        'watch',
      );
      expect(t.nodes(lost)).toEqual([]);
      t.nodes(new Map());
      expect(
        t.observe('MODIFIED', pod({ uid: 'c', running: true, deleting: true }), 'watch'),
      ).toEqual([]);
    });
  });
});
