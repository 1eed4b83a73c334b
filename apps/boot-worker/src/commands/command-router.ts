import { CommandType, type FieldError, type KpmEvent } from '@kpm/contracts';
import type { BootWorkerMetrics } from '../boot-worker-metrics';
import type { BootHandler } from '../boot/boot-handler';
import type { KillHandler } from '../kill/kill-handler';
import type { TerminateHandler } from '../kill/terminate-handler';
import type { LogsHandler } from '../logs/logs-handler';
import type { RestartHandler } from '../restart/restart-handler';
import type { CommandContext } from './command-context';

export interface CommandHandlers {
  boot: BootHandler;
  kill: KillHandler;
  terminate: TerminateHandler;
  restart: RestartHandler;
  logs: LogsHandler;
}

/**
 * Hands each valid command to its handler; `ps` and `flush` are the state service's alone.
 * Returns why the command is refused (empty when it was carried out).
 */
export class CommandRouter {
  constructor(
    private readonly handlers: CommandHandlers,
    private readonly metrics?: BootWorkerMetrics,
  ) {}

  route(command: KpmEvent, context: CommandContext): Promise<FieldError[]> {
    if (command.type === CommandType.ps || command.type === CommandType.flush)
      return Promise.resolve([]);
    const handle = () => this.dispatch(command, context);
    return this.metrics ? this.metrics.command(command.type, handle) : handle();
  }

  private dispatch(command: KpmEvent, context: CommandContext): Promise<FieldError[]> {
    switch (command.type) {
      case CommandType.boot:
        return this.handlers.boot.handle(command.data, context);
      case CommandType.kill:
        return this.handlers.kill.handle(command.data, context);
      case CommandType.terminate:
        return this.handlers.terminate.handle(command.data, context);
      case CommandType.restart:
        return this.handlers.restart.handle(command.data, context);
      case CommandType.logs:
        return this.handlers.logs.handle(command.data, context);
      default:
        return Promise.resolve([]);
    }
  }
}
