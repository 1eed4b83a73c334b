import type { V1Pod } from '@kubernetes/client-node';
import { isAlive, isReady } from './pod-state';

const FATAL = new Set(['ErrImagePull']);

const pod = (status: V1Pod['status'], deleting = false): V1Pod => ({
  metadata: { name: 'p', deletionTimestamp: deleting ? new Date() : undefined },
  status,
});
const running = {
  phase: 'Running',
  containerStatuses: [
    { name: 'c', image: 'i', imageID: '', ready: true, restartCount: 0, state: { running: {} } },
  ],
};
const badImage = {
  phase: 'Pending',
  containerStatuses: [
    {
      name: 'c',
      image: 'i',
      imageID: '',
      ready: false,
      restartCount: 0,
      state: { waiting: { reason: 'ErrImagePull' } },
    },
  ],
};

describe('isAlive: a process whose name a new boot may not take', () => {
  it.each<[string, V1Pod, boolean]>([
    ['running', pod(running), true],
    ['pending', pod({ phase: 'Pending' }), true],
    ['running while its grace period runs', pod(running, true), false],
    ['ended', pod({ phase: 'Failed' }), false],
    ['stuck on a fatal waiting reason', pod(badImage), false],
  ])('%s: %s', (_, p, alive) => {
    expect(isAlive(p, FATAL)).toBe(alive);
  });

  it.each<[string, number, boolean]>([
    ['within the watcher', 30, true],
    ['after the watcher', 5, false],
  ])(
    "failing to pull %s's image-pull grace: the same verdict as the watcher's",
    (_, grace, alive) => {
      const started = { ...badImage, startTime: new Date('2026-11-22T10:00:00Z') };
      const now = new Date('2026-11-22T10:00:10Z');
      expect(isAlive(pod(started), FATAL, { graceSeconds: grace, now })).toBe(alive);
    },
  );
});

describe('isReady', () => {
  it.each<[string, V1Pod | undefined, boolean]>([
    ['Ready True', pod({ conditions: [{ type: 'Ready', status: 'True' }] }), true],
    ['Ready False', pod({ conditions: [{ type: 'Ready', status: 'False' }] }), false],
    ['no conditions', pod({}), false],
    ['gone', undefined, false],
  ])('%s: %s', (_, p, ready) => {
    expect(isReady(p)).toBe(ready);
  });
});
