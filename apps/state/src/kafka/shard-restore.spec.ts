import type { InboundRecord } from '@kpm/kafka';
import { idleSince, replaySliced } from './shard-restore';

const records = (n: number): InboundRecord[] =>
  Array.from({ length: n }, (_, i) => ({
    topic: 'kpm.process-events',
    partition: 0,
    offset: String(i),
    key: 's',
    value: null,
    headers: {},
    timestamp: '0',
  }));

describe('replaySliced', () => {
  it.each([
    { case: 'a slice per record', sliceMs: 0, turnsBetween: 3 },
    { case: 'one slice for all', sliceMs: 60_000, turnsBetween: 0 },
  ])(
    'replays in order and gives the event loop a turn after each slice ($case)',
    async ({ sliceMs, turnsBetween }) => {
      const seen: string[] = [];
      let turns = 0;
      let ticking = true;
      const tick = () => {
        if (!ticking) return;
        turns++;
        setImmediate(tick);
      };
      setImmediate(tick);
      let turnsAtFirst = -1;
      await replaySliced(
        records(4),
        (record) => {
          if (turnsAtFirst < 0) turnsAtFirst = turns;
          seen.push(record.offset);
        },
        sliceMs,
      );
      const during = turns - turnsAtFirst;
      ticking = false;
      expect(seen).toEqual(['0', '1', '2', '3']);
      expect(during).toBeGreaterThanOrEqual(turnsBetween);
      if (turnsBetween === 0) expect(during).toBe(0);
    },
  );
});

describe('idleSince: whether a restored shard may skip kpm.processes', () => {
  const head = (extra: object = {}) =>
    ({
      head: {
        inputs: { 'kpm.terminations': '7' },
        completionsFrom: '0',
        processesFrom: {},
        ...extra,
      },
      parts: [],
    }) as unknown as Parameters<typeof idleSince>[0];
  const committed = new Map([['kpm.terminations', new Map([[0, '7']])]]);

  it('skips it when nothing was consumed since the snapshot', () => {
    expect(idleSince(head(), 0, committed)).toBe(true);
    expect(idleSince(head(), 0, new Map([['kpm.terminations', new Map([[0, '8']])]]))).toBe(false);
  });

  it('reads it when the snapshot had automatic restarts waiting: their timer writes rows', () => {
    expect(idleSince(head({ timerWrites: true }), 0, committed)).toBe(false);
  });
});
