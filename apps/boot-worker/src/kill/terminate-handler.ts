import type { FieldError, TerminateCommand } from '@kpm/contracts';
import { namespaceView, sessionOwnershipErrors } from '../boot/session-ownership';
import type { Cluster } from '../cluster/cluster';
import type { CommandContext } from '../commands/command-context';
import type { Killer } from './killer';

/**
 * `terminate`: kill every process of the session, then delete its namespace (unless
 * `keepNamespace`). Kubernetes removes the namespace once the watcher released the pods it
 * recorded. A session without a namespace has nothing to kill: accepted with no stages, so a
 * redelivered terminate ends the same way.
 */
export class TerminateHandler {
  constructor(
    private readonly cluster: Cluster,
    private readonly killer: Killer,
    private readonly operators: readonly string[],
  ) {}

  async handle(command: TerminateCommand, context: CommandContext): Promise<FieldError[]> {
    const { session, user } = command;
    const namespace = await this.cluster.namespaces.read(session);
    const errors = sessionOwnershipErrors(
      session,
      { user, operators: this.operators },
      namespace && namespaceView(namespace, this.cluster.labels),
    );
    if (errors.length > 0) return errors;
    const processes = namespace ? await this.cluster.pods.processes(session) : [];
    await this.killer.kill(
      processes,
      {
        kind: 'terminate',
        session,
        gracePeriodSeconds: command.gracePeriodSeconds,
        timeoutSeconds: command.timeoutSeconds,
        deadlineSeconds: command.deadlineSeconds,
      },
      context,
    );
    if (namespace && !command.keepNamespace) await this.cluster.namespaces.delete(namespace);
    return [];
  }
}
