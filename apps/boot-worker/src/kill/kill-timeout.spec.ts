import { killProgressTimeoutSeconds, killTimeoutSeconds, killTiming } from './kill-timeout';

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
