import { runnerReadiness, type RunnerState } from './runner-readiness';

describe('runnerReadiness', () => {
  it.each<{ state: RunnerState; ready: boolean; detail: string }>([
    {
      state: { joined: false, restoring: [], owned: [] },
      ready: false,
      detail: 'joining the group',
    },
    {
      state: { joined: true, restoring: [2, 0], owned: [1] },
      ready: false,
      detail: 'restoring partitions [2, 0]',
    },
    {
      state: { joined: true, restoring: [], owned: [3, 1] },
      ready: true,
      detail: 'owns partitions [1, 3]',
    },
    {
      state: { joined: true, restoring: [], owned: [] },
      ready: true,
      detail: 'owns partitions []',
    },
    {
      state: { joined: false, crashed: 'no brokers', restoring: [], owned: [1] },
      ready: false,
      detail: 'consumer stopped: no brokers',
    },
    {
      state: {
        joined: true,
        restarting: 'message larger than the max message size',
        restoring: [],
        owned: [1],
      },
      ready: false,
      detail: 'consumer restarting after a crash: message larger than the max message size',
    },
    {
      state: {
        joined: true,
        restoring: [4],
        owned: [1, 4],
        failing: new Map([[4, 'the record is too large']]),
      },
      ready: false,
      detail: 'partition 4 makes no progress: its transaction failed: the record is too large',
    },
  ])('$detail', ({ state, ready, detail }) => {
    expect(runnerReadiness(state)).toEqual({ ready, detail });
  });
});
