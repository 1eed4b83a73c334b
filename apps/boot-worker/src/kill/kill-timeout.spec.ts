import {
  killProgressTimeoutSeconds,
  killTimeoutSeconds,
  killTiming,
  killTimingWithin,
} from './kill-timeout';

const settings = {
  killTimeoutSeconds: 30,
  killEscalationMarginSeconds: 5,
  forcedKillWaitSeconds: 10,
};

describe('kill timeout', () => {
  it.each<[string, number | undefined, number, number | undefined, number, number]>([
    ['one stage, configured grace', undefined, 1, undefined, 30, 45],
    ['three stages', undefined, 3, undefined, 30, 135],
    ['no stages counts as one', undefined, 0, undefined, 30, 45],
    ["the command's grace period", 2, 2, undefined, 2, 34],
    ["the command's grace period 0", 0, 1, undefined, 0, 15],
    ["the command's own bound", undefined, 3, 7, 30, 7],
    ["the command's own bound of 0", 2, 3, 0, 2, 0],
  ])('%s', (_, grace, stages, requested, expectedGrace, expectedTimeout) => {
    const timing = killTiming(settings, grace);
    expect(timing).toEqual({
      gracePeriodSeconds: expectedGrace,
      escalationMarginSeconds: 5,
      forcedKillWaitSeconds: 10,
    });
    expect(killTimeoutSeconds(timing, stages, requested)).toBe(expectedTimeout);
  });

  it('moves on while pods keep ending, one stage apart, unless the command set its own bound', () => {
    const timing = killTiming(settings, 2);
    expect(killProgressTimeoutSeconds(timing)).toBe(17);
    expect(killProgressTimeoutSeconds(timing, 7)).toBeUndefined();
  });
});

describe("a kill planned inside the caller's deadline", () => {
  const drunc = {
    killTimeoutSeconds: 30,
    killEscalationMarginSeconds: 5,
    forcedKillWaitSeconds: 15,
  };

  it.each<[string, number, number, number | undefined, [number, number, number]]>([
    ['one stage: the configured timing fits', 1, 53, undefined, [30, 5, 13]],
    ['three stages share 53 s', 3, 53, undefined, [9, 4, 4]],
    ['five stages share 53 s', 5, 53, undefined, [6, 2, 2]],
    ["the command's grace, when it fits", 3, 53, 2, [2, 4, 4]],
    ["the command's grace, cut to fit", 3, 53, 30, [9, 4, 4]],
    ['a deadline too short for any grace', 5, 3, undefined, [0, 0, 0]],
    ['no stages counts as one', 0, 60, undefined, [30, 5, 15]],
  ])('%s', (_, stages, deadline, grace, [g, margin, forced]) => {
    const timing = killTimingWithin(drunc, stages, deadline, grace);
    expect(timing).toEqual({
      gracePeriodSeconds: g,
      escalationMarginSeconds: margin,
      forcedKillWaitSeconds: forced,
    });
    const perStage = g + margin + forced;
    expect(Math.max(1, stages) * perStage).toBeLessThanOrEqual(deadline);
  });
});
