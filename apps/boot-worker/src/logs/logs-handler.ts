import type { FieldError, LogsCommand } from '@kpm/contracts';
import { failureOf } from '@kpm/kube';
import type { KpmSettings } from '@kpm/config';
import type { Cluster } from '../cluster';
import type { CommandContext } from '../commands/command-context';
import type { FactSink } from '../facts/fact-sink';
import type { ProcessFacts } from '../facts/process-facts';
import { selectOne } from '../kill/exactly-one';
import { describeMatches } from '../kill/query-resolver';

/**
 * `logs`: the last `tailLines` lines of one process's log, bounded in bytes so the answer fits a
 * record. When the node cannot serve logs, the answer says so in its lines, as drunc's does.
 */
export class LogsHandler {
  constructor(
    private readonly cluster: Cluster,
    private readonly facts: ProcessFacts,
    private readonly sink: FactSink,
    private readonly settings: KpmSettings,
  ) {}

  async handle(command: LogsCommand, context: CommandContext): Promise<FieldError[]> {
    const one = await selectOne(this.cluster, command.query, 'logs', context.subject);
    if (!one.ok) return one.errors;
    const tailLines = command.tailLines ?? 100;
    let lines: string[];
    try {
      lines = await this.cluster.logs.logs(
        one.process.pod,
        tailLines,
        this.settings.podManagement.logsMaxBytes,
      );
    } catch (error) {
      const { reason, message } = failureOf(error);
      lines = [
        `Could not retrieve logs of ${describeMatches([one.process])}: ${reason}: ${message}`,
      ];
    }
    await this.sink.send([
      this.facts.logsFetched(context.subject, context.commandId, one.process.uuid, lines),
    ]);
    return [];
  }
}
