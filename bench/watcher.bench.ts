import type { V1Pod } from '@kubernetes/client-node';
import { DEFAULT_FATAL_WAITING_REASONS } from '@kpm/config';
import { terminalVerdict } from '../apps/watcher/src/rules/termination-rules';
import type { BenchSuite } from './harness';

const fatal = new Set(DEFAULT_FATAL_WAITING_REASONS);
const at = '2026-11-22T10:00:00Z';

function pod(name: string, status: V1Pod['status'], deleting = false): V1Pod {
  return {
    metadata: {
      name,
      namespace: 'run-1',
      uid: `uid-${name}`,
      deletionTimestamp: deleting ? new Date(at) : undefined,
    },
    status,
  };
}

const running = pod('running', {
  phase: 'Running',
  containerStatuses: [
    {
      name: 'main',
      image: 'i',
      imageID: '',
      ready: true,
      restartCount: 0,
      state: { running: { startedAt: new Date(at) } },
    },
  ],
});
const failed = pod('failed', {
  phase: 'Failed',
  containerStatuses: [
    {
      name: 'main',
      image: 'i',
      imageID: '',
      ready: false,
      restartCount: 0,
      state: {
        terminated: {
          exitCode: 143,
          reason: 'Error',
          signal: 15,
          startedAt: new Date(at),
          finishedAt: new Date(at),
        },
      },
    },
  ],
});
const imageError = pod('image', {
  phase: 'Pending',
  containerStatuses: [
    {
      name: 'main',
      image: 'i',
      imageID: '',
      ready: false,
      restartCount: 0,
      state: { waiting: { reason: 'ErrImagePull' } },
    },
  ],
});

/** The watcher's pure rule runs on every pod event: it must stay far below the event rate it sees. */
export const watcherBench: BenchSuite = {
  title: 'Watcher: termination verdicts per pod event',
  cases: () =>
    (
      [
        ['running pod (not terminal)', running],
        ['failed pod (exit 143, SIGTERM)', failed],
        ['image pull error (-1 ErrImagePull)', imageError],
      ] as const
    ).map(([name, subject]) => ({
      name,
      units: 10_000,
      unit: 'event',
      run: () => {
        for (let i = 0; i < 10_000; i++) terminalVerdict(subject, 'MODIFIED', fatal);
      },
    })),
  ratios: [
    [
      'terminal vs running verdict cost',
      'failed pod (exit 143, SIGTERM)',
      'running pod (not terminal)',
    ],
  ],
};
