import { validate as isUuid, version } from 'uuid';
import {
  completionEventId,
  deadLetterEventId,
  eventId,
  KPM_ID_NAMESPACE,
  processUuid,
  terminationEventId,
} from './ids';

describe('deterministic ids', () => {
  it('are stable UUIDv5s of their inputs', () => {
    const id = eventId('process.booted', 'cmd-1', 'u1');
    expect(isUuid(id)).toBe(true);
    expect(version(id)).toBe(5);
    expect(eventId('process.booted', 'cmd-1', 'u1')).toBe(id);
  });

  it('never change for the same inputs (they are persisted on topics)', () => {
    expect(KPM_ID_NAMESPACE).toBe('9c22960e-1577-46fc-85c5-1cfecc5ee838');
    expect(processUuid('cmd-1', 0)).toBe(eventId('process-uuid', 'cmd-1', '0'));
    expect(processUuid('cmd-1', 0)).toBe('816d3cf8-2030-5909-b08d-add405e31630');
  });

  it('differ when the parts differ, including how they split', () => {
    expect(eventId('a.b', 'c')).not.toBe(eventId('a', 'b.c'));
    expect(processUuid('cmd-1', 0)).not.toBe(processUuid('cmd-1', 1));
    expect(terminationEventId('pod-1')).not.toBe(terminationEventId('pod-2'));
    expect(completionEventId('cmd-1')).not.toBe(terminationEventId('cmd-1'));
    expect(deadLetterEventId('kpm.commands', 1, '10')).not.toBe(
      deadLetterEventId('kpm.commands', 11, '0'),
    );
  });

  it('do not depend on the clock', () => {
    const before = terminationEventId('pod-1');
    jest.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    try {
      expect(terminationEventId('pod-1')).toBe(before);
    } finally {
      jest.useRealTimers();
    }
  });
});
