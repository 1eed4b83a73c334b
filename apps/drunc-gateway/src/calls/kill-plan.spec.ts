import type { Metadata } from '@grpc/grpc-js';
import {
  KILL_PLAN_KEY,
  KILL_WITHIN_KEY,
  killBudgetSeconds,
  killPlanMetadata,
  sayKillPlan,
} from './kill-plan';

describe('kill plan', () => {
  it.each([
    [59_000, 53],
    [129_000, 116],
    [10_000, 8],
    [2_500, 1],
    [0, 1],
  ])('gives a call answered in %i ms a kill of %i s', (leftMs, seconds) => {
    expect(killBudgetSeconds(1_000_000 + leftMs, 1_000_000)).toBe(seconds);
  });

  it.each([
    ['kill', 53, true, "inside the call's deadline"],
    ['terminate', 116, false, "inside the gateway's default deadline"],
  ] as const)(
    'says a %s planned within %i s (caller deadline %s)',
    (rpc, budget, given, inside) => {
      const metadata = killPlanMetadata(rpc, budget, given);
      expect(metadata.get(KILL_WITHIN_KEY)).toEqual([String(budget)]);
      const [text] = metadata.get(KILL_PLAN_KEY);
      expect(text).toContain(`kpm plans this ${rpc} to end within ${budget} s, ${inside}`);
      expect(text).toContain('SIGKILL in time');
    },
  );

  it.each([
    ['a deadline', new Date(1_060_000), "the call's deadline"],
    ['no deadline', Infinity, "the gateway's default deadline"],
  ])("sends the plan for a call with %s in the reply's metadata", (_, deadline, inside) => {
    const sent: Metadata[] = [];
    const call = { getDeadline: () => deadline, sendMetadata: (m: Metadata) => sent.push(m) };
    sayKillPlan(call, 'kill', 53);
    expect(sent).toHaveLength(1);
    expect(sent[0].get(KILL_WITHIN_KEY)).toEqual(['53']);
    expect(String(sent[0].get(KILL_PLAN_KEY)[0])).toContain(inside);
  });
});
