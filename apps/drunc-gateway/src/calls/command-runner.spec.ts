import { status } from '@grpc/grpc-js';
import { CommandFailedError, CommandTimeoutError, InvalidCommandError } from '@kpm/client';
import type { CommandCompleted } from '@kpm/contracts';
import { GatewayError } from '../errors/gateway-error';
import type { CommandLookup } from './retry-rule';
import { CommandRunner, type CommandCall } from './command-runner';

const done = (
  commandId: string,
  s: CommandCompleted['status'] = 'succeeded',
): CommandCompleted => ({
  commandId,
  commandType: 'daq.kpm.command.kill.v1',
  session: 's',
  status: s,
  processes: [],
  errors: s === 'succeeded' ? undefined : [{ path: 'query.names[0]', message: 'bad' }],
  completedAt: new Date().toISOString(),
  durationMs: 1,
});

class FakeState {
  readonly known = new Map<string, CommandLookup>();
  command(id: string): Promise<CommandLookup> {
    return Promise.resolve(this.known.get(id) ?? { state: 'unknown' });
  }
}

function call(overrides: Partial<CommandCall> = {}): CommandCall & { sent: string[] } {
  const sent: string[] = [];
  return {
    rpc: 'kill',
    identity: { rpc: 'kill', user: 'u', request: { query: { names: ['x'] } } },
    send: (commandId) => {
      sent.push(commandId);
      return Promise.resolve({
        commandId,
        type: 'daq.kpm.command.kill.v1',
        session: 's',
        completion: done(commandId),
      } as never);
    },
    changedSince: () => Promise.resolve(false),
    answerByMs: Date.now() + 10_000,
    fieldOf: (p) => `drunc.${p}`,
    ...overrides,
    sent,
  };
}

describe('CommandRunner', () => {
  const settings = { retryWindowMs: 300_000, viewPollMs: 5 };

  it('sends a first call and returns its completion', async () => {
    const c = call();
    const completion = await new CommandRunner(new FakeState(), settings).run(c);
    expect(c.sent).toHaveLength(1);
    expect(completion.commandId).toBe(c.sent[0]);
  });

  it('answers a retry from the completion of the command already sent, sending nothing', async () => {
    const state = new FakeState();
    const first = call();
    await new CommandRunner(state, settings).run(first);
    state.known.set(first.sent[0], { state: 'completed', completion: done(first.sent[0]) });
    const retry = call();
    const completion = await new CommandRunner(state, settings).run(retry);
    expect(retry.sent).toEqual([]);
    expect(completion.commandId).toBe(first.sent[0]);
  });

  it('reads the completion from the state service when the client never sees it', async () => {
    const state = new FakeState();
    const c = call({
      send: (commandId) => {
        state.known.set(commandId, { state: 'completed', completion: done(commandId) });
        return new Promise(() => undefined); // the client's consumer was positioned after it
      },
    });
    const completion = await new CommandRunner(state, settings).run(c);
    expect(completion.status).toBe('succeeded');
  });

  it.each([
    ['rejected', new CommandFailedError(done('x', 'rejected'))],
    ['timed_out', new CommandTimeoutError('x', 'kill', 's', 1, done('x', 'timed_out'))],
  ])('returns a %s completion the client throws with', async (statusName, error) => {
    const completion = await new CommandRunner(new FakeState(), settings).run(
      call({ send: () => Promise.reject(error) }),
    );
    expect(completion.status).toBe(statusName);
  });

  it('refuses, naming the drunc field, what the contract refuses before publishing', async () => {
    const invalid = new InvalidCommandError('kill', [{ path: 'names[0]', message: 'is not RE2' }]);
    const run = new CommandRunner(new FakeState(), settings).run(
      call({ send: () => Promise.reject(invalid) }),
    );
    await expect(run).rejects.toMatchObject({
      rich: {
        code: status.INVALID_ARGUMENT,
        violations: [{ field: 'drunc.names[0]', description: 'is not RE2' }],
      },
    });
  });

  it('at the deadline answers DEADLINE_EXCEEDED with how far the command got', async () => {
    const state = new FakeState();
    const c = call({
      answerByMs: Date.now() + 30,
      send: (commandId) => {
        state.known.set(commandId, {
          state: 'open',
          progress: 'open in kpm, 3 process(es) pending',
        });
        return new Promise(() => undefined);
      },
    });
    const error = await new CommandRunner(state, settings).run(c).catch((e: GatewayError) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).rich).toMatchObject({
      code: status.DEADLINE_EXCEEDED,
      reason: 'COMMAND_STILL_RUNNING',
      metadata: { progress: 'open in kpm, 3 process(es) pending' },
    });
  });

  it('says UNAVAILABLE when kpm cannot be reached', async () => {
    const run = new CommandRunner(new FakeState(), settings).run(
      call({ send: () => Promise.reject(new Error('broker down')) }),
    );
    await expect(run).rejects.toMatchObject({ rich: { code: status.UNAVAILABLE } });
  });
});
