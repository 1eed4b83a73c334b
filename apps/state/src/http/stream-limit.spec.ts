import { EventEmitter } from 'node:events';
import { type HttpException } from '@nestjs/common';
import { loadSettings } from '@kpm/config';
import { StreamSlots } from './stream-limit';

/** An express Response that can close, keeping the headers set on it. */
function connection() {
  const headers: Record<string, string> = {};
  const response = Object.assign(new EventEmitter(), {
    setHeader: (name: string, value: string) => (headers[name] = value),
  });
  return { response: response as never, close: () => response.emit('close'), headers };
}

describe('StreamSlots', () => {
  const slots = () => new StreamSlots(loadSettings('state', { KPM_HTTP_MAX_STREAMS: '2' }));

  it('admits http.maxStreams streams, refuses one more with 503 and Retry-After', () => {
    const limit = slots();
    limit.admit(connection().response);
    limit.admit(connection().response);
    const third = connection();
    let refused: unknown;
    try {
      limit.admit(third.response);
    } catch (error) {
      refused = error;
    }
    expect((refused as HttpException).getStatus()).toBe(503);
    expect(third.headers).toEqual({ 'Retry-After': '5' });
    expect(limit.count).toBe(2);
  });

  it('frees a slot when its connection closes, once however often it closes', () => {
    const limit = slots();
    const first = connection();
    limit.admit(first.response);
    limit.admit(connection().response);
    first.close();
    first.close();
    expect(limit.count).toBe(1);
    limit.admit(connection().response);
    expect(limit.count).toBe(2);
  });
});
