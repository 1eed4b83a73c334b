import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { firstFatalWait, hasPodEnded, podEnding, type PodEndCause } from './pod-ending';

const FATAL = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'CreateContainerConfigError',
]);

const status = (name: string, state: V1ContainerStatus['state']): V1ContainerStatus => ({
  name,
  image: 'daq:1',
  imageID: '',
  ready: false,
  restartCount: 0,
  state,
});
const running = (name = 'main') => status(name, { running: {} });
const terminated = (exitCode: number, name = 'main') => status(name, { terminated: { exitCode } });
const waiting = (reason: string, name = 'main') => status(name, { waiting: { reason } });

interface Shape {
  phase?: string;
  inits?: V1ContainerStatus[];
  mains?: V1ContainerStatus[];
  deleting?: boolean;
  /** As the watch delivers it: a string timestamp. */
  deletingAsString?: boolean;
  /** Seen in a DELETED watch event. */
  removed?: boolean;
  /** On a node the cluster lost. */
  nodeLost?: boolean;
}

function pod({ phase, inits, mains, deleting, deletingAsString }: Shape): V1Pod {
  const deletionTimestamp = deletingAsString
    ? ('2026-11-22T10:00:05Z' as unknown as Date)
    : deleting
      ? new Date()
      : undefined;
  return {
    metadata: { name: 'readout-1', deletionTimestamp },
    status: { phase, initContainerStatuses: inits, containerStatuses: mains },
  };
}

describe('podEnding', () => {
  it.each<[string, Shape | undefined, boolean, PodEndCause | undefined]>([
    // Not ended.
    ['Pending, no statuses', { phase: 'Pending' }, false, undefined],
    [
      'Pending, creating',
      { phase: 'Pending', mains: [waiting('ContainerCreating')] },
      false,
      undefined,
    ],
    ['Running', { phase: 'Running', mains: [running()] }, false, undefined],
    [
      'Running while its grace period runs',
      { phase: 'Running', mains: [running()], deleting: true },
      false,
      undefined,
    ],
    [
      'being deleted, an init container still running',
      { phase: 'Pending', inits: [running('setup')], deleting: true },
      false,
      undefined,
    ],
    [
      'only a sidecar ended',
      { phase: 'Running', mains: [running(), terminated(0, 'sidecar')] },
      false,
      undefined,
    ],
    [
      'every container terminated, phase not yet terminal (it restarts)',
      { phase: 'Running', mains: [terminated(143)] },
      false,
      undefined,
    ],
    [
      'a waiting reason that is not fatal',
      { phase: 'Pending', inits: [waiting('PodInitializing', 'setup')] },
      false,
      undefined,
    ],
    // Ended.
    ['gone', undefined, true, 'deleted'],
    [
      'removed (DELETED event) while running',
      { phase: 'Running', mains: [running()], removed: true },
      true,
      'deleted',
    ],
    ['Succeeded', { phase: 'Succeeded', mains: [terminated(0)] }, true, 'succeeded'],
    ['Succeeded without statuses', { phase: 'Succeeded' }, true, 'succeeded'],
    ['Succeeded and being deleted', { phase: 'Succeeded', deleting: true }, true, 'succeeded'],
    ['Failed', { phase: 'Failed', mains: [terminated(3)] }, true, 'failed'],
    ['Failed without statuses (evicted)', { phase: 'Failed' }, true, 'failed'],
    [
      'Failed and being deleted',
      { phase: 'Failed', mains: [terminated(143)], deleting: true },
      true,
      'deleted',
    ],
    [
      'Failed and being deleted, a container still reported running',
      { phase: 'Failed', mains: [running()], deleting: true },
      true,
      'deleted',
    ],
    [
      'a fatal wait of the main container',
      { phase: 'Pending', mains: [waiting('ErrImagePull')] },
      true,
      'fatal-wait',
    ],
    [
      'a fatal wait of an init container',
      { phase: 'Pending', inits: [waiting('InvalidImageName', 'setup')] },
      true,
      'fatal-wait',
    ],
    [
      'a fatal wait while being deleted',
      { phase: 'Pending', mains: [waiting('ErrImagePull')], deleting: true },
      true,
      'fatal-wait',
    ],
    [
      'being deleted before it was scheduled',
      { phase: 'Pending', deleting: true },
      true,
      'deleted',
    ],
    [
      'being deleted while creating',
      { phase: 'Pending', mains: [waiting('ContainerCreating')], deleting: true },
      true,
      'deleted',
    ],
    [
      'being deleted, watch JSON timestamp',
      { phase: 'Pending', deletingAsString: true },
      true,
      'deleted',
    ],
    [
      'being deleted, every container terminated',
      { phase: 'Running', mains: [terminated(143)], deleting: true },
      true,
      'deleted',
    ],
    [
      'being deleted, init containers done and none running',
      {
        phase: 'Pending',
        inits: [terminated(0, 'setup')],
        mains: [waiting('PodInitializing')],
        deleting: true,
      },
      true,
      'deleted',
    ],
    // On a lost node: a deletion ends it, nothing else does; a known end keeps its cause.
    [
      "lost node, still running: the taint's toleration runs",
      { phase: 'Running', mains: [running()], nodeLost: true },
      false,
      undefined,
    ],
    [
      'lost node, being deleted while "running": nobody can stop it',
      { phase: 'Running', mains: [running()], deleting: true, nodeLost: true },
      true,
      'node-lost',
    ],
    [
      'lost node, being deleted before it started',
      { phase: 'Pending', mains: [waiting('ContainerCreating')], deleting: true, nodeLost: true },
      true,
      'node-lost',
    ],
    [
      'lost node, it had succeeded',
      { phase: 'Succeeded', mains: [terminated(0)], deleting: true, nodeLost: true },
      true,
      'succeeded',
    ],
  ])('%s', (_, shape, ended, cause) => {
    const removed = shape?.removed ?? false;
    const nodeLost = shape?.nodeLost ?? false;
    const ending = podEnding({ pod: shape && pod(shape), fatalReasons: FATAL, removed, nodeLost });
    expect(ending).toMatchObject(ended ? { ended, cause } : { ended });
    if (!removed && !nodeLost) expect(hasPodEnded(shape && pod(shape), FATAL)).toBe(ended);
  });

  it('names the fatal wait, init containers first, and honours the configured reasons', () => {
    const p = pod({
      phase: 'Pending',
      inits: [waiting('ErrImagePull', 'setup')],
      mains: [waiting('ErrImagePull')],
    });
    expect(firstFatalWait(p, FATAL)).toMatchObject({
      containerType: 'init',
      reason: 'ErrImagePull',
      status: { name: 'setup' },
    });
    const custom = pod({ phase: 'Pending', mains: [waiting('RunContainerError')] });
    expect(podEnding({ pod: custom, fatalReasons: new Set(['RunContainerError']) })).toMatchObject({
      ended: true,
      cause: 'fatal-wait',
      fatalWait: { containerType: 'main', reason: 'RunContainerError' },
    });
    expect(podEnding({ pod: custom, fatalReasons: FATAL })).toEqual({ ended: false });
  });

  describe('image-pull grace', () => {
    const STARTED = '2026-11-22T10:00:00Z';
    const at = (seconds: number) => new Date(Date.parse(STARTED) + seconds * 1000);
    const pulling = (reason: string, start: 'startTime' | 'creation' | 'none' = 'startTime') => {
      const p = pod({ phase: 'Pending', mains: [waiting(reason)] });
      if (start === 'startTime') p.status!.startTime = STARTED as unknown as Date;
      if (start === 'creation') p.metadata!.creationTimestamp = new Date(STARTED);
      return p;
    };

    it.each<[string, V1Pod, number, number, boolean]>([
      ['ErrImagePull within the grace', pulling('ErrImagePull'), 60, 59, false],
      ['ErrImagePull once the grace is over', pulling('ErrImagePull'), 60, 60, true],
      ['ImagePullBackOff within the grace', pulling('ImagePullBackOff'), 60, 10, false],
      ['ImagePullBackOff after the grace', pulling('ImagePullBackOff'), 60, 61, true],
      ['an invalid image name: fatal at once', pulling('InvalidImageName'), 60, 0, true],
      ['another fatal reason: at once', pulling('CreateContainerConfigError'), 60, 0, true],
      ['no grace configured (0): at once', pulling('ErrImagePull'), 0, 0, true],
      [
        'counted from creation without startTime',
        pulling('ErrImagePull', 'creation'),
        60,
        30,
        false,
      ],
      ['no start known: at once', pulling('ErrImagePull', 'none'), 60, 0, true],
    ])('%s', (_, p, graceSeconds, afterSeconds, ended) => {
      const imagePull = { graceSeconds, now: at(afterSeconds) };
      expect(podEnding({ pod: p, fatalReasons: FATAL, imagePull }).ended).toBe(ended);
      expect(hasPodEnded(p, FATAL, imagePull)).toBe(ended);
    });

    it('still ends a pod within the grace for another cause (deleted while pulling)', () => {
      const p = pod({ phase: 'Pending', mains: [waiting('ErrImagePull')], deleting: true });
      p.status!.startTime = STARTED as unknown as Date;
      expect(
        podEnding({ pod: p, fatalReasons: FATAL, imagePull: { graceSeconds: 60, now: at(1) } }),
      ).toEqual({ ended: true, cause: 'deleted' });
    });
  });
});
