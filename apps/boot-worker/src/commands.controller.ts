import { Controller, Logger } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { CommandType, eventId, topicName, type CloudEvent } from '@kpm/contracts';
import { KpmSettings } from '@kpm/config';
import { EventProducer, INVALID_EVENT, KafkaEventContext, type InvalidEvent } from '@kpm/kafka';
import { Broadcaster } from '@kpm/service-kit';
import { commandRejectedRecord } from './command-rejection';

/** kpm.commands in: every command is acknowledged with drunc's COMMAND_RECEIVED; bad ones are rejected. */
@Controller()
export class CommandsController {
  private readonly logger = new Logger(CommandsController.name);

  constructor(
    private readonly settings: KpmSettings,
    private readonly producer: EventProducer,
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

  /** Commands that are not valid get a `command.rejected` fact naming each field and why. */
  @EventPattern(INVALID_EVENT)
  async invalid(@Payload() invalid: InvalidEvent, @Ctx() context: KafkaEventContext): Promise<void> {
    const { record } = context;
    const rejected = commandRejectedRecord(
      { ...invalid.envelope, key: record.key, coordinates: `${record.topic}/${record.partition}/${record.offset}` },
      invalid.errors.map((error) => ({ path: error.path, message: error.message })),
      `/kpm/${this.settings.service}/${this.settings.instance}`,
    );
    this.logger.warn(`rejected command ${invalid.envelope.id ?? '(no id)'}: ${invalid.errors.map((e) => `${e.path} ${e.message}`).join('; ')}`);
    await this.producer.send(topicName('process-events', this.settings.kafka.topicPrefix), [rejected]);
  }
}
