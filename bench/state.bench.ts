import { StateShard } from '../apps/state/src/domain/state-shard';
import {
  bootAccepted,
  booted,
  killAccepted,
  terminated,
} from '../apps/state/src/domain/__fixtures__/facts';
import type { BenchSuite } from './harness';

/** The facts of one session's life: boot of `n` processes, a kill, and `n` terminations. */
function sessionLife(n: number) {
  const names = Array.from({ length: n }, (_, i) => `app-${i}`);
  const boot = [bootAccepted('boot-1', names), ...names.map((name) => booted('boot-1', name))];
  const kill = [
    killAccepted('kill-1', [names]),
    ...names.map((name, i) => terminated(name, i % 2 ? 143 : 0)),
  ];
  return { boot, kill, all: [...boot, ...kill] };
}

/** The state service's pure core: how fast it folds facts into the table and the pending sets. */
export const stateBench: BenchSuite = {
  title: 'State service: applying facts to the process table and pending-deletion sets',
  cases: () =>
    [100, 5000].map((n) => {
      const { all } = sessionLife(n);
      return {
        name: `boot + kill of ${n} processes (${all.length} facts)`,
        units: all.length,
        unit: 'fact',
        run: () => {
          const shard = new StateShard(() => 0);
          for (const event of all) shard.apply(event, 0);
          return shard;
        },
      };
    }),
  ratios: [
    [
      'per-fact cost at 5000 vs 100 processes (1.0 = linear)',
      'boot + kill of 5000 processes (10002 facts)',
      'boot + kill of 100 processes (202 facts)',
    ],
  ],
};
