import { sseFrame, sseRetry } from './sse-frame';

describe('sseFrame', () => {
  it.each([
    ['with an id', 'row', { uuid: 'u1' }, 'ab.7', 'id: ab.7\nevent: row\ndata: {"uuid":"u1"}\n\n'],
    [
      'without an id',
      'heartbeat',
      { cursor: 'ab.7' },
      undefined,
      'event: heartbeat\ndata: {"cursor":"ab.7"}\n\n',
    ],
    [
      'text with newlines kept on one data line',
      'broadcast',
      { text: 'a\nb' },
      'ab.8',
      'id: ab.8\nevent: broadcast\ndata: {"text":"a\\nb"}\n\n',
    ],
  ])('frames an event %s', (_case, event, data, id, expected) => {
    expect(sseFrame(event, data, id)).toBe(expected);
  });

  it('tells the browser when to reconnect', () => {
    expect(sseRetry(1000)).toBe('retry: 1000\n\n');
  });
});
