/**
 * FakePodApi keeps the pod watch's contract (__fixtures__/pod-watch-contract.ts): the table that
 * test/integration/pod-watch-contract.test.ts runs on KubeCoreApi and KubeWatch against the API
 * server.
 */
import { FakePodApi } from './__fixtures__/fake-pod-api';
import { POD_WATCH_CONTRACT, type PodWatchEnv } from './__fixtures__/pod-watch-contract';

function fakeEnv(api: FakePodApi): PodWatchEnv {
  let count = 0;
  return {
    unique: (label) => `${label}-${++count}`,
    namespace: 'contract',
    place: (pod) => ({ ...pod, spec: { ...pod.spec!, nodeName: 'node-1' } }),
    tooOldResourceVersion: '1',
    forgetHistory: () => Promise.resolve(api.compact()),
  };
}

describe('FakePodApi keeps the pod watch contract', () => {
  it.each(POD_WATCH_CONTRACT.map((c) => [c.name, c] as const))('%s', async (_name, contract) => {
    const api = new FakePodApi();
    await contract.run(api, fakeEnv(api));
  });
});
