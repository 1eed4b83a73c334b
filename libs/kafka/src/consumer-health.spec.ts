import { ConsumerHealth, type ConsumerHealthReport } from './consumer-health';

type Step = (h: ConsumerHealth) => void;
const join: Step = (h) => h.joinedGroup();
const crash: Step = (h) => h.crashed(new Error('message larger than the max message size'), true);
const stop: Step = (h) => h.crashed(new Error('fatal'), false);
const stuck: Step = (h) => h.retrying('kpm.commands[3]', '42', 2, 'API server unreachable');
const moved: Step = (h) => h.progressed('kpm.commands[3]', '42');

describe('ConsumerHealth', () => {
  it.each<[string, Step[], ConsumerHealthReport]>([
    ['before joining', [], { ready: false, detail: 'joining the group' }],
    ['in the group', [join], { ready: true, detail: 'consuming' }],
    [
      'crashing and restarting',
      [join, crash],
      {
        ready: false,
        detail: 'restarting after a crash: message larger than the max message size',
      },
    ],
    ['stopped for good', [join, stop], { ready: false, detail: 'stopped after a crash: fatal' }],
    ['rejoined after a crash', [join, crash, join], { ready: true, detail: 'consuming' }],
    [
      'stuck on a partition',
      [join, stuck],
      {
        ready: false,
        detail:
          'kpm.commands[3] makes no progress: offset 42 failed 2 times: API server unreachable',
      },
    ],
    ['moving again', [join, stuck, moved], { ready: true, detail: 'consuming' }],
  ])('%s', (_, steps, expected) => {
    const seen: ConsumerHealthReport[] = [];
    const health = new ConsumerHealth((r) => seen.push(r));
    for (const step of steps) step(health);
    expect(health.report()).toEqual(expected);
    if (steps.length > 0) expect(seen[seen.length - 1]).toEqual(expected);
  });
});
