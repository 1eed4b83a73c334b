import { logEvent } from './log-event';

describe('logEvent', () => {
  it('is the event as its name and message, then its fields', () => {
    const entry = logEvent('shard.restored', { partition: 3, durationMs: 45 });
    expect(entry).toEqual({
      message: 'shard.restored',
      event: 'shard.restored',
      partition: 3,
      durationMs: 45,
    });
    expect(Object.keys(entry).slice(0, 2)).toEqual(['message', 'event']);
  });

  it('keeps its name when a field is called event or message', () => {
    expect(logEvent('kafka.client', { event: 'x', message: 'y' })).toMatchObject({
      message: 'kafka.client',
      event: 'kafka.client',
    });
  });
});
