import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { CommandType, eventId, type CloudEvent } from '@kpm/contracts';
import { KpmSettings } from '@kpm/config';
import { Broadcaster } from '@kpm/service-kit';

/** kpm.commands in: state acknowledges each command; aggregates and answers come from its process table. */
@Controller()
export class StateCommandsController {
  constructor(
    private readonly settings: KpmSettings,
    private readonly broadcaster: Broadcaster,
  ) {}

  @EventPattern(Object.values(CommandType))
  async received(@Payload() command: CloudEvent<unknown>): Promise<void> {
    await this.broadcaster.broadcast({
      id: eventId('command-received', this.settings.service, command.id),
      broadcastType: 'COMMAND_RECEIVED',
      session: command.subject,
      text: `${this.settings.service} received ${command.type} ${command.id}`,
      data: { commandId: command.id, commandType: command.type },
    });
  }
}
