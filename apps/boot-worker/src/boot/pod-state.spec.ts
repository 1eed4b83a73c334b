import type { V1Pod } from '@kubernetes/client-node';
import { fatalWaitingReason, hasEnded, isAlive, isReady } from './pod-state';

const pod = (status: V1Pod['status'], deleting = false): V1Pod => ({
  metadata: { name: 'p', deletionTimestamp: deleting ? new Date() : undefined },
  status,
});
const running = {
  containerStatuses: [
    { name: 'c', image: 'i', imageID: '', ready: true, restartCount: 0, state: { running: {} } },
  ],
};
const terminated = {
  containerStatuses: [
    {
      name: 'c',
      image: 'i',
      imageID: '',
      ready: false,
      restartCount: 0,
      state: { terminated: { exitCode: 143 } },
    },
  ],
};
const pulling = (reason: string) => ({
  phase: 'Pending',
  containerStatuses: [
    {
      name: 'c',
      image: 'i',
      imageID: '',
      ready: false,
      restartCount: 0,
      state: { waiting: { reason } },
    },
  ],
});

describe('pod state', () => {
  it('a gone pod, a final phase or terminated containers have ended', () => {
    expect(hasEnded(undefined)).toBe(true);
    expect(hasEnded(pod({ phase: 'Succeeded' }))).toBe(true);
    expect(hasEnded(pod({ phase: 'Failed' }))).toBe(true);
    expect(hasEnded(pod({ phase: 'Running', ...terminated }))).toBe(true);
  });

  it('a running pod has not ended, also while its grace period runs', () => {
    expect(hasEnded(pod({ phase: 'Running', ...running }))).toBe(false);
    expect(hasEnded(pod({ phase: 'Running', ...running }, true))).toBe(false);
    expect(isAlive(pod({ phase: 'Running', ...running }))).toBe(true);
    expect(isAlive(pod({ phase: 'Running', ...running }, true))).toBe(false);
  });

  it('a deleted pod that never ran, or a fatal image error, has ended', () => {
    expect(hasEnded(pod({ phase: 'Pending' }, true))).toBe(true);
    expect(hasEnded(pod(pulling('ErrImagePull')))).toBe(true);
    expect(fatalWaitingReason(pod(pulling('ErrImagePull')))).toBe('ErrImagePull');
    expect(hasEnded(pod(pulling('ContainerCreating')))).toBe(false);
    expect(fatalWaitingReason(pod(pulling('ContainerCreating')))).toBeUndefined();
  });

  it('reads the Ready condition', () => {
    expect(isReady(pod({ conditions: [{ type: 'Ready', status: 'True' }] }))).toBe(true);
    expect(isReady(pod({ conditions: [{ type: 'Ready', status: 'False' }] }))).toBe(false);
    expect(isReady(undefined)).toBe(false);
  });
});
