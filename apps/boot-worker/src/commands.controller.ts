import { Controller, Inject, Logger } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import {
  broadcastText,
  CommandType,
  eventId,
  topicName,
  traceparentOf,
  withCause,
  type FieldError,
  type KpmEvent,
} from '@kpm/contracts';
import { KpmSettings } from '@kpm/config';
import { EventProducer } from '@kpm/kafka';
import { INVALID_EVENT, KafkaEventContext, type InvalidEvent } from '@kpm/kafka/nest';
import { Broadcaster } from '@kpm/service-kit';
import { commandRejectedRecord, type RefusedCommand } from './command-rejection';
import { StopRequested } from './commands/command-context';
import { CommandRouter } from './commands/command-router';

/**
 * kpm.commands in: every command is acknowledged with drunc's COMMAND_RECEIVED, then carried out;
 * a command that is invalid, or refused by the boot-worker's own checks, gets `command.rejected`
 * naming each field and why.
 */
@Controller()
export class CommandsController {
  private readonly logger = new Logger(CommandsController.name);

  // Explicit tokens: tsx (esbuild) emits no decorator metadata for Nest to infer them from.
  constructor(
    @Inject(KpmSettings) private readonly settings: KpmSettings,
    @Inject(EventProducer) private readonly producer: EventProducer,
    @Inject(Broadcaster) private readonly broadcaster: Broadcaster,
    @Inject(CommandRouter) private readonly router: CommandRouter,
  ) {}

  @EventPattern(Object.values(CommandType))
  async received(@Payload() command: KpmEvent, @Ctx() context: KafkaEventContext): Promise<void> {
    // Every record this command causes carries its trace, every log its id (docs/design.md §3.4).
    const cause = {
      traceparent: traceparentOf(command),
      commandId: command.id,
      session: command.subject,
    };
    await withCause(cause, () => this.carryOut(command, context));
  }

  private async carryOut(command: KpmEvent, context: KafkaEventContext): Promise<void> {
    await this.broadcaster.broadcast({
      id: eventId('command-received', this.settings.service, command.id),
      broadcastType: 'COMMAND_RECEIVED',
      session: command.subject,
      text: `${this.settings.service} received ${command.type} ${command.id}`,
      data: { commandId: command.id, commandType: command.type },
    });
    const errors = await this.route(command, context);
    if (errors.length > 0) {
      await this.reject(
        {
          id: command.id,
          type: command.type,
          subject: command.subject,
          key: context.record.key,
          coordinates: coordinatesOf(context),
        },
        errors,
      );
    }
  }

  /**
   * An unexpected error is broadcast as drunc's UNHANDLED_EXCEPTION_RAISED, then left to the
   * transport (retried, then dead-lettered). A stop is no error: the command is redelivered.
   */
  private async route(command: KpmEvent, context: KafkaEventContext): Promise<FieldError[]> {
    try {
      return await this.router.route(command, {
        commandId: command.id,
        subject: command.subject ?? context.record.key ?? '',
        heartbeat: () => context.heartbeat(),
        signal: context.signal,
      });
    } catch (error) {
      if (!(error instanceof StopRequested)) await this.broadcastUnhandled(command, error);
      throw error;
    }
  }

  private async broadcastUnhandled(command: KpmEvent, error: unknown): Promise<void> {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    await this.broadcaster
      .broadcast({
        id: eventId('unhandled-exception', this.settings.service, command.id, name, message),
        broadcastType: 'UNHANDLED_EXCEPTION_RAISED',
        session: command.subject,
        text: broadcastText.exception(name, message),
        data: { commandId: command.id, commandType: command.type },
      })
      .catch((broadcastError: unknown) =>
        this.logger.warn(`UNHANDLED_EXCEPTION_RAISED not sent: ${String(broadcastError)}`),
      );
  }

  /** Commands that are not valid get a `command.rejected` fact naming each field and why. */
  @EventPattern(INVALID_EVENT)
  async invalid(
    @Payload() invalid: InvalidEvent,
    @Ctx() context: KafkaEventContext,
  ): Promise<void> {
    await this.reject(
      { ...invalid.envelope, key: context.record.key, coordinates: coordinatesOf(context) },
      invalid.errors,
    );
  }

  private async reject(refused: RefusedCommand, errors: readonly FieldError[]): Promise<void> {
    const rejected = commandRejectedRecord(
      refused,
      errors.map((error) => ({ path: error.path, message: error.message })),
      `/kpm/${this.settings.service}/${this.settings.instance}`,
    );
    this.logger.warn(
      `rejected command ${refused.id ?? '(no id)'}: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`,
    );
    await this.producer.send(topicName('process-events', this.settings.kafka.topicPrefix), [
      rejected,
    ]);
  }
}

function coordinatesOf(context: KafkaEventContext): string {
  const { record } = context;
  return `${record.topic}/${record.partition}/${record.offset}`;
}
