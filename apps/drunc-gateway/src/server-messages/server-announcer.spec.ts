import type { BroadcastInput } from '@kpm/service-kit';
import { announcement, BroadcastAnnouncer, MAX_ANNOUNCED_TEXT } from './server-announcer';
import type { ServerLogEntry } from './server-messages';
import type { ServerLogLevel } from './severity';

describe('announcement: what kpm broadcast says of a message to the server', () => {
  it.each([
    [
      { rpc: 'log_on_server' as const, user: 'alice', severity: 'INFO', text: 'alice connected' },
      "log_on_server from 'alice' (INFO): alice connected",
      { rpc: 'log_on_server', user: 'alice', severity: 'INFO', text: 'alice connected' },
    ],
    [
      { rpc: 'echo_on_server' as const, user: '', severity: 'warning', text: '' },
      "echo_on_server from '' (warning): ",
      { rpc: 'echo_on_server', user: '', severity: 'warning', text: '' },
    ],
    [
      { rpc: 'send_msg' as const, user: 'bob', text: 'session run-1 ended' },
      "send_msg from 'bob': session run-1 ended",
      { rpc: 'send_msg', user: 'bob', text: 'session run-1 ended' },
    ],
  ])('%j is a TEXT_MESSAGE %j', (message, text, data) => {
    const input = announcement(message, 'call-1');
    expect(input).toEqual({ id: expect.any(String), broadcastType: 'TEXT_MESSAGE', text, data });
    expect(input.session).toBeUndefined();
  });

  it('gives each call its own id, and one call the same id', () => {
    const message = { rpc: 'send_msg' as const, user: 'bob', text: 'x' };
    expect(announcement(message, 'a').id).toBe(announcement(message, 'a').id);
    expect(announcement(message, 'a').id).not.toBe(announcement(message, 'b').id);
    expect(announcement(message).id).not.toBe(announcement(message).id);
  });

  it('bounds and sanitises what the caller sent: control characters and length', () => {
    const input = announcement({
      rpc: 'log_on_server',
      user: 'eve\u001b[31m',
      severity: 'INFO\n',
      text: 'x'.repeat(10_000),
    });
    expect(input.text.length).toBeLessThanOrEqual(MAX_ANNOUNCED_TEXT);
    expect(input.text).toContain("from 'eve?[31m' (INFO?)");
    expect(input.text).toMatch(/characters\)$/);
    expect(input.data).toMatchObject({ user: 'eve?[31m', severity: 'INFO?' });
    expect((input.data!.text as string).length).toBeLessThanOrEqual(MAX_ANNOUNCED_TEXT);
  });
});

describe('BroadcastAnnouncer', () => {
  const message = { rpc: 'send_msg' as const, user: 'bob', text: 'ended' };

  it('broadcasts the announcement', async () => {
    const sent: BroadcastInput[] = [];
    const announcer = new BroadcastAnnouncer(
      { broadcast: (input) => Promise.resolve(void sent.push(input)) },
      { write: () => undefined },
    );
    await announcer.announce(message);
    expect(sent).toEqual([expect.objectContaining({ broadcastType: 'TEXT_MESSAGE' })]);
    expect(sent[0].text).toBe("send_msg from 'bob': ended");
  });

  it('logs a broadcast that fails and does not fail the call', async () => {
    const written: Array<[ServerLogLevel, ServerLogEntry]> = [];
    const announcer = new BroadcastAnnouncer(
      { broadcast: () => Promise.reject(new Error('broker down')) },
      { write: (level, entry) => written.push([level, entry]) },
    );
    await expect(announcer.announce(message)).resolves.toBeUndefined();
    expect(written).toEqual([
      [
        'warn',
        { event: 'drunc.announce_failed', rpc: 'send_msg', user: 'bob', error: 'broker down' },
      ],
    ]);
  });
});
