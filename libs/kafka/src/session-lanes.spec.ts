import { SessionLanes } from './session-lanes';

/** `admit <offset> <session>` or `finish <offset>`, and what the lanes answer. */
type Step = [op: string, expected: { start?: string[]; commit?: string; admitted?: boolean }];

describe('SessionLanes', () => {
  it.each<{ rule: string; steps: Step[]; inFlight?: number }>([
    {
      rule: 'records of different sessions start at once',
      steps: [
        ['admit 0 a', { admitted: true, start: ['0'] }],
        ['admit 1 b', { admitted: true, start: ['1'] }],
        ['admit 2 c', { admitted: true, start: ['2'] }],
      ],
      inFlight: 3,
    },
    {
      rule: "one session's records wait for each other, in offset order",
      steps: [
        ['admit 0 a', { start: ['0'] }],
        ['admit 1 a', { start: [] }],
        ['admit 2 a', { start: [] }],
        ['finish 0', { start: ['1'], commit: '1' }],
        ['finish 1', { start: ['2'], commit: '2' }],
        ['finish 2', { start: [], commit: '3' }],
      ],
      inFlight: 0,
    },
    {
      rule: 'a later session finishing first does not move the commit past a running one',
      steps: [
        ['admit 0 a', { start: ['0'] }],
        ['admit 1 b', { start: ['1'] }],
        ['finish 1', { start: [] }],
        ['admit 2 b', { start: ['2'] }],
        ['finish 2', { start: [] }],
        ['finish 0', { start: [], commit: '3' }],
      ],
    },
    {
      rule: 'the commit stops at the lowest unfinished record',
      steps: [
        ['admit 0 a', { start: ['0'] }],
        ['admit 1 b', { start: ['1'] }],
        ['admit 2 c', { start: ['2'] }],
        ['finish 0', { start: [], commit: '1' }],
        ['finish 2', { start: [] }],
        ['finish 1', { start: [], commit: '3' }],
      ],
    },
    {
      rule: 'gaps in offsets (compaction, transaction markers) commit one past the highest seen',
      steps: [
        ['admit 4 a', { start: ['4'] }],
        ['admit 9 b', { start: ['9'] }],
        ['finish 9', { start: [] }],
        ['finish 4', { start: [], commit: '10' }],
      ],
    },
    {
      rule: 'a redelivered record (running, queued or done) is not admitted again',
      steps: [
        ['admit 0 a', { start: ['0'] }],
        ['admit 1 a', { start: [] }],
        ['admit 2 b', { start: ['2'] }],
        ['finish 2', { start: [] }],
        ['admit 0 a', { admitted: false, start: [] }],
        ['admit 1 a', { admitted: false, start: [] }],
        ['admit 2 b', { admitted: false, start: [] }],
        ['admit 3 b', { admitted: true, start: ['3'] }],
      ],
      inFlight: 3,
    },
    {
      rule: 'a record without a session has a lane of its own like any other',
      steps: [
        ['admit 0 -', { start: ['0'] }],
        ['admit 1 a', { start: ['1'] }],
        ['admit 2 -', { start: [] }],
      ],
    },
  ])('$rule', ({ steps, inFlight }) => {
    const lanes = new SessionLanes(10);
    for (const [op, expected] of steps) {
      const [verb, offset, session] = op.split(' ');
      const answer =
        verb === 'admit'
          ? lanes.admit(offset, session === '-' ? '' : session)
          : lanes.finish(offset);
      const admitted = 'admitted' in answer ? answer.admitted : undefined;
      expect({ op, start: answer.start, commit: answer.commit, admitted }).toEqual({
        op,
        start: expected.start ?? [],
        commit: expected.commit,
        admitted: verb === 'admit' ? (expected.admitted ?? true) : undefined,
      });
    }
    if (inFlight !== undefined) expect(lanes.inFlight).toBe(inFlight);
  });

  it('is full at maxInFlight records not finished, queued ones included, and refuses more', () => {
    const lanes = new SessionLanes(2);
    lanes.admit('0', 'a');
    expect(lanes.full).toBe(false);
    lanes.admit('1', 'a');
    expect(lanes.full).toBe(true);
    expect(() => lanes.admit('2', 'b')).toThrow(/partition full: 2 records in flight/);
    lanes.finish('0');
    expect(lanes.full).toBe(false);
    expect(lanes.admit('2', 'b')).toEqual({ admitted: true, start: ['2'] });
  });

  it('has nothing to commit before a record was seen, then the lowest open offset', () => {
    const lanes = new SessionLanes(4);
    expect(lanes.watermark()).toBeUndefined();
    lanes.admit('7', 'a');
    expect(lanes.watermark()).toBe('7');
  });

  it.each([
    ['finishing a record never admitted', (l: SessionLanes) => l.finish('3'), /not running/],
    [
      'finishing a queued record before the head of its lane',
      (l: SessionLanes) => {
        l.admit('0', 'a');
        l.admit('1', 'a');
        return l.finish('1');
      },
      /not the head of its lane/,
    ],
    [
      'finishing a record twice',
      (l: SessionLanes) => {
        l.admit('0', 'a');
        l.admit('1', 'b');
        l.finish('1');
        return l.finish('1');
      },
      /not running/,
    ],
  ])('refuses %s', (_, misuse, error) => {
    expect(() => misuse(new SessionLanes(4))).toThrow(error);
  });

  it.each([0, -1, 1.5])('refuses maxInFlight %p', (max) => {
    expect(() => new SessionLanes(max)).toThrow(/maxInFlight must be a positive integer/);
  });
});
