import { status } from '@grpc/grpc-js';
import type { CommandCompleted } from '@kpm/contracts';
import { bootFieldPath, queryFieldPath } from '../mapping/field-paths';
import { badRequest, completionError } from './gateway-error';

const rejected = (errors: { path?: string; message: string }[]): CommandCompleted =>
  ({
    commandId: 'c-1',
    status: 'rejected',
    errors,
    processes: [],
  }) as unknown as CommandCompleted;

/** drunc's newest shell shows only the status message: each must carry the whole explanation. */
describe("refusals in drunc's words", () => {
  it('names the drunc field, why, the allowed prefixes, the setting and what to do', () => {
    const error = completionError(
      'boot',
      rejected([
        {
          path: 'processes[0].logFile',
          message:
            '"/home/alice/run" is not under an allowed host path prefix; allowed: /data, /log (podManagement.hostPathPrefixes)',
        },
      ]),
      bootFieldPath,
    );
    expect(error.rich.code).toBe(status.INVALID_ARGUMENT);
    expect(error.rich.message).toBe(
      'boot refused by kpm: process_description.process_logs_path: "/home/alice/run" is not under an allowed host path prefix; allowed: /data, /log (podManagement.hostPathPrefixes)' +
        " (drunc writes each process's log in the directory its shell was started in: start the shell under an allowed prefix, or ask the operator to add one)",
    );
  });

  it("names drunc's fields for each error of a boot, and keeps a message without a path", () => {
    const error = completionError(
      'boot',
      rejected([
        { path: 'processes[0].name', message: '"ru 01" must be a process name' },
        { path: 'session', message: 'session "run-7" belongs to user "bob", not "alice"' },
        { message: 'kpm is stopping' },
      ]),
      bootFieldPath,
    );
    expect(error.rich.code).toBe(status.PERMISSION_DENIED);
    expect(error.rich.message).toBe(
      'boot refused by kpm: process_description.metadata.name: "ru 01" must be a process name; process_description.metadata.session: session "run-7" belongs to user "bob", not "alice"; kpm is stopping',
    );
  });

  it("names a query's fields as drunc's ProcessQuery has them", () => {
    const error = completionError(
      'kill',
      rejected([{ path: 'query.names[0]', message: 'is not RE2: lookaround' }]),
      queryFieldPath,
    );
    expect(error.rich.message).toBe('kill refused by kpm: names[0]: is not RE2: lookaround');
  });

  it('says which field, why and what to give for a request the gateway refuses itself', () => {
    expect(
      badRequest('kill', [
        {
          field: 'uuids, names, user, session',
          description: 'at least one selector is needed: an empty query selects nothing to kill',
        },
      ]).rich.message,
    ).toBe(
      'kill refused: uuids, names, user, session: at least one selector is needed: an empty query selects nothing to kill',
    );
  });
});
