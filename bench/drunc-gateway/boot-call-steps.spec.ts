import { bootCallSteps, type BootRecords, type CallWindow } from './boot-call-steps';

const call = (sentMs: number, answeredMs: number): CallWindow => ({ sentMs, answeredMs });
const records = (commandMs: number, step: number): BootRecords => ({
  commandMs,
  acceptedMs: commandMs + step,
  bootedMs: commandMs + 2 * step,
  completionMs: commandMs + 3 * step,
});

describe('bootCallSteps', () => {
  it('pairs the i-th call with the i-th command and reports each step', () => {
    // Given in shuffled order: pairing is by time, not by position in the input.
    const calls = [call(1000, 1100), call(0, 100)];
    const commands = [records(1010, 20), records(10, 20)];
    const steps = bootCallSteps(calls, commands);
    expect(steps.map((s) => [s.step, s.p50Ms])).toEqual([
      ['send → command', 10],
      ['command → accepted', 20],
      ['accepted → booted', 20],
      ['booted → completion', 20],
      ['completion → answer', 30],
    ]);
  });

  it('takes the median and p90 by nearest rank over the calls', () => {
    const calls = [0, 1, 2, 3, 4].map((i) => call(i * 1000, i * 1000 + 100));
    const commands = [1, 2, 3, 4, 50].map((gap, i) => ({
      commandMs: i * 1000 + gap,
      acceptedMs: i * 1000 + 60,
      bootedMs: i * 1000 + 70,
      completionMs: i * 1000 + 80,
    }));
    const [send] = bootCallSteps(calls, commands);
    expect(send).toEqual({ step: 'send → command', p50Ms: 3, p90Ms: 50 });
  });

  it('refuses calls and commands that do not pair one to one, saying how many of each', () => {
    expect(() => bootCallSteps([call(0, 1), call(2, 3)], [records(0, 1)])).toThrow(
      '2 calls but 1 boot commands on Kafka',
    );
    expect(() => bootCallSteps([], [])).toThrow('no calls');
  });
});
