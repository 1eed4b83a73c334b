import type { Response } from 'express';
import { HealthController } from './health.controller';
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

type Step = [ready: boolean, atMs: number];

describe('Readiness liveness deadline', () => {
  const DEADLINE_MS = 1000;

  // steps: the watch part's reports (ready?, when); then is it overdue at `checkAtMs`?
  it.each<[string, Step[], number, boolean]>([
    ['failing past the deadline', [[false, 0]], 1001, true],
    ['failing exactly the deadline', [[false, 0]], 1000, false],
    [
      'repeated failures keep the first failure time',
      [
        [false, 0],
        [false, 900],
      ],
      1500,
      true,
    ],
    [
      'a recovery restarts the clock',
      [
        [false, 0],
        [true, 900],
        [false, 1000],
      ],
      1900,
      false,
    ],
    ['ready long ago', [[true, 0]], 10_000, false],
    [
      'a standby after a failing term',
      [
        [false, 0],
        [true, 500],
      ],
      10_000,
      false,
    ],
  ])('%s', (_name, steps, checkAtMs, overdue) => {
    const readiness = new Readiness();
    readiness.expect('pod-watch', DEADLINE_MS, 0);
    for (const [ready, atMs] of steps) readiness.set('pod-watch', ready, 'detail', atMs);
    expect('pod-watch' in readiness.overdue(checkAtMs)).toBe(overdue);
  });

  it('never makes a part without a deadline overdue', () => {
    const readiness = new Readiness();
    readiness.expect('kafka-consumer', undefined, 0);
    readiness.set('kafka-consumer', false, 'rebalancing', 0);
    expect(readiness.overdue(1e12)).toEqual({});
    expect(readiness.ready).toBe(false);
  });

  it('reports how long and why', () => {
    const readiness = new Readiness();
    readiness.expect('pod-watch', DEADLINE_MS, 100);
    readiness.set('pod-watch', false, 'list failed: Forbidden', 200);
    expect(readiness.overdue(5100)).toEqual({
      'pod-watch': { notReadyForMs: 5000, detail: 'list failed: Forbidden' },
    });
  });
});

describe('HealthController /healthz', () => {
  function answer(readiness: Readiness): { status: number; body: unknown } {
    const result = { status: 0, body: undefined as unknown };
    const response = {
      status(code: number) {
        result.status = code;
        return this;
      },
      json(body: unknown) {
        result.body = body;
        return this;
      },
    };
    new HealthController(readiness).healthz(response as unknown as Response);
    return result;
  }

  it('answers 200 while no part is overdue, even when not ready', () => {
    const readiness = new Readiness();
    readiness.expect('pod-watch', 60_000);
    expect(answer(readiness)).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('answers 503 naming the overdue part', () => {
    const readiness = new Readiness();
    readiness.expect('pod-watch', 1000, Date.now() - 5000);
    readiness.set('pod-watch', false, 'watch ended: error');
    const { status, body } = answer(readiness);
    expect(status).toBe(503);
    expect(body).toMatchObject({ status: 'failing', overdue: { 'pod-watch': {} } });
  });
});
