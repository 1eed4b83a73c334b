import { buildEvent } from './build';
import { CommandType } from './event-types';
import { EXAMPLE_EVENTS } from './examples';
import {
  currentTraceparent,
  recordTraceparent,
  traceIdOf,
  traceparentOf,
  withTrace,
} from './trace-context';

const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const ps = EXAMPLE_EVENTS[CommandType.ps];
const build = () => buildEvent({ type: ps.type, id: 'e-1', source: '/kpm/test', data: ps.data });

describe('trace context', () => {
  it('stamps every event built inside withTrace, across awaits, and none outside', async () => {
    const inside = await withTrace(traceparent, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return build();
    });
    expect(traceparentOf(inside)).toBe(traceparent);
    expect(traceparentOf(build())).toBeUndefined();
    expect(currentTraceparent()).toBeUndefined();
  });

  it('lets an explicit traceparent win over the ambient one', () => {
    const other = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const event = withTrace(traceparent, () =>
      buildEvent({
        type: ps.type,
        id: 'e-2',
        source: '/kpm/test',
        data: ps.data,
        traceparent: other,
      }),
    );
    expect(traceparentOf(event)).toBe(other);
  });

  it.each([
    [traceparent, traceparent],
    ['00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01', undefined],
    ['not-a-trace', undefined],
    [42, undefined],
  ])('reads %j as %j', (value, expected) => {
    expect(traceparentOf({ traceparent: value })).toBe(expected);
  });

  it('names the trace id', () => {
    expect(traceIdOf(traceparent)).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });
});

describe('recordTraceparent', () => {
  const json = (value: object) => Buffer.from(JSON.stringify(value));
  it.each([
    ['a structured event', json({ id: 'x', traceparent }), {}, traceparent],
    ['a structured event without one', json({ id: 'x' }), {}, undefined],
    ['a malformed one', json({ traceparent: 'x' }), {}, undefined],
    ['a binary-mode header', Buffer.from('{}'), { ce_traceparent: traceparent }, traceparent],
    ['a malformed header', json({ traceparent }), { ce_traceparent: 'nope' }, undefined],
    ['a value that is not JSON', Buffer.from('not json'), {}, undefined],
    ['a tombstone', null, {}, undefined],
  ])('reads %s', (_what, value, headers, expected) => {
    expect(recordTraceparent(value, headers)).toBe(expected);
  });
});
