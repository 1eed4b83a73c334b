/**
 * The commands under way, as the broadcasts tell them: `COMMAND_EXECUTION_START` opens one, its
 * completion closes it. The page asks `/v1/commands/:id` for what each still waits for.
 */
import type { CommandCompleted } from '@kpm/contracts';

export interface StartedCommand {
  commandId: string;
  commandType: string;
  session: string;
  startedAt: string;
}

export class CommandTracker {
  private readonly open = new Map<string, StartedCommand>();
  private readonly closed = new Set<string>();

  constructor(private readonly closedToRemember = 10_000) {}

  /** Returns the command if this opened it (a completion seen first keeps it closed). */
  started(command: StartedCommand): StartedCommand | undefined {
    if (this.closed.has(command.commandId) || this.open.has(command.commandId)) return undefined;
    this.open.set(command.commandId, command);
    return command;
  }

  completed(completion: Pick<CommandCompleted, 'commandId'>): void {
    this.open.delete(completion.commandId);
    this.closed.add(completion.commandId);
    for (const oldest of this.closed) {
      if (this.closed.size <= this.closedToRemember) break;
      this.closed.delete(oldest);
    }
  }

  list(): StartedCommand[] {
    return [...this.open.values()];
  }
}
