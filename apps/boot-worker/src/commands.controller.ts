import { Controller, Inject, Logger } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import {
  broadcastText,
  CommandType,
  eventId,
  eventSource,
  topicName,
  traceparentOf,
  withCause,
  type FieldError,
  type KpmEvent,
} from '@kpm/contracts';
import { errorText, logEvent } from '@kpm/common';
import { KpmSettings } from '@kpm/config';
import { EventProducer } from '@kpm/kafka';
import { INVALID_EVENT, KafkaEventContext, type InvalidEvent } from '@kpm/kafka/nest';
import { Broadcaster } from '@kpm/service-kit';
import { BootWorkerHandlers } from './boot-worker.factory';
import { BootWorkerMetrics } from './boot-worker-metrics';
import { commandRejectedRecord, type RefusedCommand } from './command-rejection';
import { StopRequested, type CommandContext } from './commands/command-context';

type Command<K extends CommandType> = KpmEvent<K>;
type Handle = (context: CommandContext) => Promise<FieldError[]>;

/**
 * kpm.commands in, one handler per command type. Every command is carried out the same way
 * (`carryOut`): in its cause (trace, id, session), acknowledged with drunc's COMMAND_RECEIVED,
 * handled, and — when the boot-worker's own checks refuse it — answered with `command.rejected`
 * naming each field and why. A command that is not valid never reaches a handler (`invalid`).
 */
@Controller()
export class CommandsController {
  private readonly logger = new Logger(CommandsController.name);

  // Explicit tokens: tsx (esbuild) emits no decorator metadata for Nest to infer them from.
  constructor(
    @Inject(KpmSettings)
    private readonly settings: Pick<KpmSettings, 'service' | 'instance' | 'kafka'>,
    @Inject(EventProducer) private readonly producer: EventProducer,
    @Inject(Broadcaster) private readonly broadcaster: Broadcaster,
    @Inject(BootWorkerHandlers) private readonly handlers: BootWorkerHandlers,
    @Inject(BootWorkerMetrics) private readonly metrics: BootWorkerMetrics,
  ) {}

  @EventPattern(CommandType.boot)
  boot(@Payload() command: Command<typeof CommandType.boot>, @Ctx() record: KafkaEventContext) {
    return this.carryOut(command, record, (c) => this.handlers.boot.handle(command.data, c));
  }

  @EventPattern(CommandType.kill)
  kill(@Payload() command: Command<typeof CommandType.kill>, @Ctx() record: KafkaEventContext) {
    return this.carryOut(command, record, (c) => this.handlers.kill.handle(command.data, c));
  }

  @EventPattern(CommandType.terminate)
  terminate(
    @Payload() command: Command<typeof CommandType.terminate>,
    @Ctx() record: KafkaEventContext,
  ) {
    return this.carryOut(command, record, (c) => this.handlers.terminate.handle(command.data, c));
  }

  @EventPattern(CommandType.restart)
  restart(
    @Payload() command: Command<typeof CommandType.restart>,
    @Ctx() record: KafkaEventContext,
  ) {
    return this.carryOut(command, record, (c) => this.handlers.restart.handle(command.data, c));
  }

  @EventPattern(CommandType.logs)
  logs(@Payload() command: Command<typeof CommandType.logs>, @Ctx() record: KafkaEventContext) {
    return this.carryOut(command, record, (c) => this.handlers.logs.handle(command.data, c));
  }

  /** `ps` and `flush` are the state service's: the boot-worker only acknowledges them. */
  @EventPattern([CommandType.ps, CommandType.flush])
  async stateCommand(@Payload() command: KpmEvent): Promise<void> {
    await withCause(causeOf(command), () => this.acknowledge(command));
  }

  /** Commands that are not valid get a `command.rejected` fact naming each field and why. */
  @EventPattern(INVALID_EVENT)
  async invalid(@Payload() invalid: InvalidEvent, @Ctx() record: KafkaEventContext): Promise<void> {
    await this.reject({ ...invalid.envelope, ...whereIn(record) }, invalid.errors);
  }

  private carryOut(command: KpmEvent, record: KafkaEventContext, handle: Handle): Promise<void> {
    return withCause(causeOf(command), async () => {
      // COMMAND_RECEIVED goes out while the command is carried out, not before it: its round
      // trip to Kafka is off the command's way. The producer keeps call order, so it still
      // precedes every later broadcast; a failed send fails the command as before (redelivered).
      const acknowledged = this.acknowledge(command);
      acknowledged.catch(() => undefined);
      const context = commandContext(command, record);
      const refusals = await this.metrics.command(command.type, () =>
        this.handleOrReport(command, () => handle(context)),
      );
      await acknowledged;
      if (refusals.length > 0) {
        const { id, type, subject } = command;
        await this.reject({ id, type, subject, ...whereIn(record) }, refusals);
      }
    });
  }

  /** drunc's COMMAND_RECEIVED, as every service sends for every command it reads. */
  private async acknowledge(command: KpmEvent): Promise<void> {
    const { service } = this.settings;
    await this.broadcaster.broadcast({
      id: eventId('command-received', service, command.id),
      broadcastType: 'COMMAND_RECEIVED',
      session: command.subject,
      text: `${service} received ${command.type} ${command.id}`,
      data: { commandId: command.id, commandType: command.type },
    });
  }

  /**
   * An unexpected error is broadcast as drunc's UNHANDLED_EXCEPTION_RAISED, then left to the
   * transport (retried, then dead-lettered). A stop is no error: the command is redelivered.
   */
  private async handleOrReport(command: KpmEvent, handle: () => Promise<FieldError[]>) {
    try {
      return await handle();
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
        this.logger.warn(
          logEvent('broadcast.failed', {
            broadcastType: 'UNHANDLED_EXCEPTION_RAISED',
            session: command.subject,
            commandId: command.id,
            error: errorText(broadcastError),
          }),
        ),
      );
  }

  private async reject(refused: RefusedCommand, errors: readonly FieldError[]): Promise<void> {
    const { service, instance, kafka } = this.settings;
    const details = errors.map(({ path, message }) => ({ path, message }));
    const rejected = commandRejectedRecord(refused, details, eventSource(service, instance));
    this.logger.warn(
      logEvent('command.rejected', {
        commandId: refused.id,
        commandType: refused.type,
        session: refused.subject,
        at: refused.coordinates,
        errors: details,
      }),
    );
    await this.producer.send(topicName('process-events', kafka.topicPrefix), [rejected]);
  }
}

/** Every record a command causes carries its trace, every log its id (docs/design.md §3.4). */
function causeOf(command: KpmEvent) {
  return { traceparent: traceparentOf(command), commandId: command.id, session: command.subject };
}

function commandContext(command: KpmEvent, record: KafkaEventContext): CommandContext {
  return {
    commandId: command.id,
    subject: command.subject ?? record.record.key ?? '',
    heartbeat: () => record.heartbeat(),
    signal: record.signal,
  };
}

/** The record's key, and its coordinates (which name a command without a usable id). */
function whereIn({ record }: KafkaEventContext): Pick<RefusedCommand, 'key' | 'coordinates'> {
  return { key: record.key, coordinates: `${record.topic}/${record.partition}/${record.offset}` };
}
