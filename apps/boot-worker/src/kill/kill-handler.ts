import { isEmptyProcessQuery, type FieldError, type KillCommand } from '@kpm/contracts';
import { processOwnershipErrors } from '../boot/session-ownership';
import type { Cluster } from '../cluster/cluster';
import type { CommandContext } from '../commands/command-context';
import type { Killer } from './killer';
import { otherSessions, resolveQuery } from './query-resolver';

export const EMPTY_QUERY: FieldError = {
  path: 'query',
  message:
    'is empty: it selects no process (give a session, uuids, names or a user; terminate stops a whole session)',
};

/**
 * `kill`: the processes the query selects, in drunc's stages. Selecting none is not an error;
 * selecting a process of a session another user owns refuses the whole kill, naming the owner;
 * selecting processes of another session than the subject is refused too.
 */
export class KillHandler {
  constructor(
    private readonly cluster: Cluster,
    private readonly killer: Killer,
    private readonly operators: readonly string[],
  ) {}

  async handle(command: KillCommand, context: CommandContext): Promise<FieldError[]> {
    const { query } = command;
    if (isEmptyProcessQuery(query)) return [EMPTY_QUERY];
    const selected = resolveQuery(query, await this.cluster.pods.processes(query.session));
    const spanning = otherSessions(selected, context.subject);
    if (spanning) return [spanning];
    const foreign = processOwnershipErrors(
      { user: command.user, operators: this.operators },
      selected,
    );
    if (foreign.length > 0) return foreign;
    await this.killer.kill(
      selected,
      {
        kind: 'kill',
        session: query.session,
        gracePeriodSeconds: command.gracePeriodSeconds,
        timeoutSeconds: command.timeoutSeconds,
        deadlineSeconds: command.deadlineSeconds,
      },
      context,
    );
    return [];
  }
}
