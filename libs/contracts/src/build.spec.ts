import { buildEvent, encodeEvent, processTombstone, recordKey } from './build';
import { CLOUDEVENTS_CONTENT_TYPE } from './envelope';
import { BroadcastEventType, CommandType, DeadLetterType, ProcessTableType } from './event-types';
import { EXAMPLE_EVENTS } from './examples';
import { broadcastText } from './outcomes/broadcast';

describe('buildEvent', () => {
  it('builds a structured CloudEvent with the given id', () => {
    const event = buildEvent({
      type: CommandType.ps,
      id: 'cmd-1',
      source: '/kpm/cli/h',
      subject: 's',
      time: new Date('2026-01-02T03:04:05Z'),
      data: { query: { session: 's' } },
    });
    expect(event).toEqual({
      specversion: '1.0',
      id: 'cmd-1',
      source: '/kpm/cli/h',
      type: CommandType.ps,
      time: '2026-01-02T03:04:05.000Z',
      subject: 's',
      datacontenttype: 'application/json',
      data: { query: { session: 's' } },
    });
  });

  it('stamps the current time when none is given', () => {
    const event = buildEvent({
      type: CommandType.ps,
      id: 'x',
      source: '/s',
      subject: 's',
      data: { query: {} },
    });
    expect(Date.now() - Date.parse(event.time ?? '')).toBeLessThan(5000);
  });
});

describe('encodeEvent', () => {
  it('writes JSON with the cloudevents content type, keyed by session', () => {
    const record = encodeEvent(EXAMPLE_EVENTS[CommandType.boot]);
    expect(record.key).toBe('session-a');
    expect(record.headers).toEqual({ 'content-type': CLOUDEVENTS_CONTENT_TYPE });
    expect(JSON.parse(record.value.toString('utf8'))).toEqual(EXAMPLE_EVENTS[CommandType.boot]);
  });

  it('keys process instances by uuid and dead letters by the original key', () => {
    const instance = EXAMPLE_EVENTS[ProcessTableType.processInstance];
    expect(recordKey(instance)).toBe(instance.data.uuid);
    expect(recordKey(EXAMPLE_EVENTS[DeadLetterType.deadLetter])).toBe('session-a');
    const keyless = { ...EXAMPLE_EVENTS[DeadLetterType.deadLetter] };
    keyless.data = { ...keyless.data, key: undefined };
    expect(recordKey(keyless)).toBeNull();
  });

  it('leaves a service-wide broadcast without key', () => {
    const broadcast = { ...EXAMPLE_EVENTS[BroadcastEventType.broadcast], subject: undefined };
    expect(encodeEvent(broadcast).key).toBeNull();
  });

  it('makes tombstones for flushed processes', () => {
    expect(processTombstone('u1')).toEqual({ key: 'u1', value: null, headers: {} });
  });
});

describe('broadcastText', () => {
  it("reproduces drunc's termination text", () => {
    expect(
      broadcastText.termination({
        name: 'ru-01',
        session: 'session-a',
        user: 'alice',
        uuid: '0b0e1c9a-4c5e-4a8a-9d55-8f1f0d7a2b3c',
        exitCode: 143,
        reason: 'Error',
      }),
    ).toBe(
      "Pod 'ru-01' (session: 'session-a', user: 'alice', uuid: 0b0e1c9a-4c5e-4a8a-9d55-8f1f0d7a2b3c) terminated with exit code 143. Reason: Error",
    );
  });
});
