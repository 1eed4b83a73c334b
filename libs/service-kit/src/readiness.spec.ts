import { Readiness } from './readiness';

describe('Readiness', () => {
  it.each([
    { rule: 'no parts: ready', steps: [], ready: true },
    { rule: 'an expected part starts not ready', steps: [['expect', 'kafka']], ready: false },
    {
      rule: 'ready once every part is',
      steps: [
        ['expect', 'kafka'],
        ['expect', 'watch'],
        ['set', 'kafka', true],
        ['set', 'watch', true],
      ],
      ready: true,
    },
    {
      rule: 'one part not ready makes the service not ready',
      steps: [
        ['set', 'kafka', true],
        ['set', 'watch', false],
      ],
      ready: false,
    },
    {
      rule: 'expecting a part again does not undo its readiness',
      steps: [
        ['expect', 'kafka'],
        ['set', 'kafka', true],
        ['expect', 'kafka'],
      ],
      ready: true,
    },
    {
      rule: 'a part can fall back to not ready',
      steps: [
        ['set', 'kafka', true],
        ['set', 'kafka', false],
      ],
      ready: false,
    },
  ] as Array<{ rule: string; steps: Array<[string, string, boolean?]>; ready: boolean }>)(
    '$rule',
    ({ steps, ready }) => {
      const readiness = new Readiness();
      for (const [verb, part, value] of steps) {
        if (verb === 'expect') readiness.expect(part);
        else readiness.set(part, value ?? false);
      }
      expect(readiness.ready).toBe(ready);
    },
  );

  it('reports each part with its detail', () => {
    const readiness = new Readiness();
    readiness.expect('state-view');
    readiness.set('kafka-consumer', true, 'owns partitions [0]');
    expect(readiness.report()).toEqual({
      'state-view': { ready: false, detail: 'starting' },
      'kafka-consumer': { ready: true, detail: 'owns partitions [0]' },
    });
  });
});
