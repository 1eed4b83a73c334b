import type { FieldError, LogsCommand } from '@kpm/contracts';
import { failureOf } from '@kpm/kube';
import type { Cluster } from '../cluster/cluster';
import type { CommandContext } from '../commands/command-context';
import type { ProcessFacts } from '../facts/process-facts';
import { selectOne } from '../kill/exactly-one';
import { describeMatches } from '../kill/query-resolver';

/** drunc's default: the last 100 lines. */
const DEFAULT_TAIL_LINES = 100;

interface LogsSettings {
  logsMaxBytes: number;
  operatorUsers: readonly string[];
}

/**
 * `logs`: the last `tailLines` lines of one process's log, bounded in bytes so the answer fits a
 * record. When the node cannot serve logs, the answer says so in its lines, as drunc's does.
 */
export class LogsHandler {
  constructor(
    private readonly cluster: Cluster,
    private readonly facts: ProcessFacts,
    private readonly settings: LogsSettings,
  ) {}

  async handle(command: LogsCommand, context: CommandContext): Promise<FieldError[]> {
    const acting = { user: command.user, operators: this.settings.operatorUsers };
    const one = await selectOne(this.cluster.pods, command.query, 'logs', acting, context.subject);
    if (!one.ok) return one.errors;
    const { pod, uuid } = one.process;
    let lines: string[];
    try {
      const tailLines = command.tailLines ?? DEFAULT_TAIL_LINES;
      lines = await this.cluster.pods.logs(pod, tailLines, this.settings.logsMaxBytes);
    } catch (error) {
      const { reason, message } = failureOf(error);
      lines = [
        `Could not retrieve logs of ${describeMatches([one.process])}: ${reason}: ${message}`,
      ];
    }
    await this.facts.send(this.facts.logsFetched(context.subject, context.commandId, uuid, lines));
    return [];
  }
}
