import type { CloudEvent } from '@kpm/contracts';
import { feedEvent } from './feed-event';

const envelope = {
  specversion: '1.0',
  id: 'e-1',
  source: '/kpm/test',
  type: 't',
  subject: 'run-7',
  time: '2026-01-01T00:00:00Z',
};
const instance = {
  uuid: 'u-1',
  statusCode: 'DEAD',
  description: { env: { BIG: 'x'.repeat(1000) } },
};

describe('feedEvent', () => {
  it.each([
    {
      kind: 'completion' as const,
      data: {
        commandId: 'c-1',
        status: 'succeeded',
        commandType: 'kill',
        durationMs: 5,
        processes: [instance],
        logs: [{ uuid: 'u-1', lines: ['l'] }],
      },
      kept: {
        commandId: 'c-1',
        status: 'succeeded',
        commandType: 'kill',
        durationMs: 5,
        processes: [{ uuid: 'u-1', statusCode: 'DEAD' }],
      },
    },
    {
      kind: 'termination' as const,
      data: {
        uuid: 'u-1',
        session: 'run-7',
        name: 'ru',
        exitCode: 143,
        reason: 'Error',
        podUid: 'p',
        phase: 'Failed',
        observedAt: 'now',
      },
      kept: { uuid: 'u-1', session: 'run-7', name: 'ru', exitCode: 143, reason: 'Error' },
    },
    {
      kind: 'broadcast' as const,
      data: { broadcastType: 'X', text: 'y', data: { commandId: 'c-1' } },
      kept: { broadcastType: 'X', text: 'y', data: { commandId: 'c-1' } },
    },
  ])('keeps of a $kind what the page shows, with its envelope', ({ kind, data, kept }) => {
    const event = { ...envelope, data } as CloudEvent<unknown>;
    expect(feedEvent(kind, event)).toEqual({ ...envelope, data: kept });
  });

  it('passes a completion without a process list through unchanged', () => {
    const event = { ...envelope, data: { commandId: 'c-1' } } as CloudEvent<unknown>;
    expect(feedEvent('completion', event)).toEqual(event);
  });
});
