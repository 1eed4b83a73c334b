import { completionEffects, receivedBroadcast, terminationBroadcast } from '../domain/broadcasts';
import type { BroadcastEffect } from '../domain/effects';
import { druncBroadcast } from './drunc-broadcasts';

const BOOT = 'daq.kpm.command.boot.v1';
const KILL = 'daq.kpm.command.kill.v1';

function completionBroadcasts(status: 'succeeded' | 'failed' | 'timed_out'): BroadcastEffect[] {
  return completionEffects({
    commandId: 'c-1',
    commandType: KILL,
    session: 's',
    status,
    processes: [],
    completedAt: 0,
    ...(status === 'succeeded' ? {} : { errors: [{ message: 'it broke' }] }),
  }).filter((e): e is BroadcastEffect => e.kind === 'broadcast');
}

const termination = terminationBroadcast({
  uuid: '00000000-0000-4000-8000-000000000001',
  session: 's',
  name: 'ru-01',
  user: 'alice',
  namespace: 's',
  podName: 'ru-01',
  podUid: 'pod-1',
  exitCode: 3,
  reason: 'Error',
  phase: 'Failed',
  observedAt: '2026-01-01T00:00:00.000Z',
  detectedBy: 'watch',
});

describe('drunc’s broadcasts from kpm’s', () => {
  const noUser = () => undefined;

  it.each<[string, BroadcastEffect, { type: string; text: string } | undefined]>([
    [
      'a command comes in: ACK in drunc’s words',
      receivedBroadcast('c-1', BOOT, 's', 'alice'),
      { type: 'ACK', text: "User 'alice' executing 'boot'" },
    ],
    [
      'it succeeded',
      completionBroadcasts('succeeded')[0],
      { type: 'COMMAND_EXECUTION_SUCCESS', text: "User 'bob' successfully executed 'kill'" },
    ],
    [
      'it failed: the exception broadcast says it, not this one',
      completionBroadcasts('failed')[0],
      undefined,
    ],
    [
      'its DruncCommandException',
      completionBroadcasts('failed')[1],
      {
        type: 'DRUNC_EXCEPTION_RAISED',
        text: expect.stringContaining("'DruncCommandException' exception thrown: kill c-1 failed"),
      },
    ],
    [
      'a kill that timed out: no success, an exception',
      completionBroadcasts('timed_out')[0],
      { type: 'DRUNC_EXCEPTION_RAISED', text: expect.stringContaining('kill c-1 timed_out') },
    ],
    [
      'a process ended: drunc’s status update, same words',
      termination,
      {
        type: 'SUBPROCESS_STATUS_UPDATE',
        text: "Pod 'ru-01' (session: 's', user: 'alice', uuid: 00000000-0000-4000-8000-000000000001) terminated with exit code 3. Reason: Error",
      },
    ],
  ])('%s', (_, effect, expected) => {
    expect(druncBroadcast(effect, (id) => (id === 'c-1' ? 'bob' : undefined))).toEqual(expected);
  });

  it('COMMAND_EXECUTION_START has no drunc counterpart', () => {
    const start: BroadcastEffect = { ...termination, broadcastType: 'COMMAND_EXECUTION_START' };
    expect(druncBroadcast(start, noUser)).toBeUndefined();
  });

  it('names the user "unknown" when nobody knows it', () => {
    expect(druncBroadcast(receivedBroadcast('c-2', BOOT, 's'), noUser)?.text).toBe(
      "User 'unknown' executing 'boot'",
    );
  });
});
