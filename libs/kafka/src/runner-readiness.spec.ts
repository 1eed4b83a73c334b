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
  ])('$detail', ({ state, ready, detail }) => {
    expect(runnerReadiness(state)).toEqual({ ready, detail });
  });
});
