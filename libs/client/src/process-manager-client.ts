/**
 * `ProcessManagerClient`: drunc's process-manager interface (boot, kill, terminate, restart, ps,
 * logs, flush) over kpm's Kafka topics, for any TypeScript DAQ component.
 *
 * Each call validates its command with the contract classes, publishes it on `kpm.commands`
 * (key = session, CloudEvent id = command id) and, when asked, awaits its single completion.
 * All waits share one consumer of `kpm.completions`, started at the topic's end *before* the
 * first command is published, so no completion can slip past.
 */
import { randomUUID } from 'node:crypto';
import {
  CommandType,
  CompletionType,
  parseRecord,
  topicName,
  type BootCommand,
  type CommandCompleted,
  type KillCommand,
  type ProcessInstance,
  type ProcessLogs,
  type ProcessQuery,
  type TerminateCommand,
} from '@kpm/contracts';
import { resolvedOptions, waitMs, type ClientOptions, type CommandOptions } from './client-options';
import { commandRecord, validCommandData } from './command-records';
import { CompletionWaiters } from './completion-waiters';
import { CommandFailedError, CommandTimeoutError, CompletionFeedError } from './errors';
import { DEFAULT_EVENT_TOPICS, eventOf, matchesFilter, type EventFilter } from './event-filter';
import { EventStream } from './event-stream';
import type { ClientTransport, ReceivedRecord, Subscription } from './transport';

export interface CommandResult {
  commandId: string;
  type: CommandType;
  /** The session the command was keyed by. */
  session: string;
  /** With `wait`: the command's single completion, whose status is `succeeded`. */
  completion?: CommandCompleted;
}

/** Plain-object forms of the contract classes, as callers write them. */
export type Boot = Pick<
  BootCommand,
  'session' | 'user' | 'processes' | 'allOrNothing' | 'exitPolicy'
>;
/** `user` (the acting user) defaults to the client's. */
export type Kill = Pick<
  KillCommand,
  'query' | 'gracePeriodSeconds' | 'timeoutSeconds' | 'deadlineSeconds'
> &
  Partial<Pick<KillCommand, 'user'>>;
export type Terminate = Pick<
  TerminateCommand,
  'session' | 'user' | 'gracePeriodSeconds' | 'timeoutSeconds' | 'deadlineSeconds' | 'keepNamespace'
>;
export type Query = Pick<ProcessQuery, 'session' | 'uuids' | 'names' | 'user'>;

export class ProcessManagerClient {
  private readonly options: Required<ClientOptions>;
  private readonly waiters = new CompletionWaiters();
  private readonly subscriptions = new Set<Subscription>();
  private completionFeed?: Promise<void>;
  private closed = false;

  constructor(
    private readonly transport: ClientTransport,
    options: ClientOptions = {},
  ) {
    this.options = resolvedOptions(options);
  }

  /** Boots the processes of one session (1–5000). */
  boot(command: Boot, options: CommandOptions = {}): Promise<CommandResult> {
    return this.send(CommandType.boot, command, options);
  }

  /** Kills what the query selects, in drunc's shutdown order. */
  async kill(command: Kill, options: CommandOptions = {}): Promise<CommandResult> {
    const data = { ...command, user: command.user ?? this.actingUser(options) };
    validCommandData(CommandType.kill, data); // before asking anyone about its session
    const session = await this.sessionOf(command.query);
    return this.send(CommandType.kill, data, options, session, command.timeoutSeconds);
  }

  /** Kills every process of the session, then deletes its namespace (unless `keepNamespace`). */
  terminate(command: Terminate, options: CommandOptions = {}): Promise<CommandResult> {
    return this.send(CommandType.terminate, command, options, undefined, command.timeoutSeconds);
  }

  /**
   * Kills every process the query selects (drunc's restart) and boots each again with the same
   * uuid and spec; the completion lists them as they are back.
   */
  async restart(query: Query, options: CommandOptions = {}): Promise<CommandResult> {
    const data = { query, user: this.actingUser(options) };
    validCommandData(CommandType.restart, data);
    return this.send(CommandType.restart, data, options, await this.sessionOf(query));
  }

  /** Forgets the DEAD processes the query selects; the completion lists them. */
  async flush(query: Query, options: CommandOptions = {}): Promise<CommandResult> {
    const data = { query, user: this.actingUser(options) };
    validCommandData(CommandType.flush, data);
    return this.send(CommandType.flush, data, options, await this.sessionOf(query));
  }

  /**
   * The processes the query selects (all of them for an empty query), from the state service.
   * The state answers in pages (docs/design.md §6.6); this follows every page's `nextCursor`.
   */
  async ps(
    query: Query = {},
    options: Omit<CommandOptions, 'wait'> = {},
  ): Promise<ProcessInstance[]> {
    const processes: ProcessInstance[] = [];
    let cursor: string | undefined;
    do {
      const data = cursor === undefined ? { query } : { query, cursor };
      const result = await this.send(CommandType.ps, data, { ...options, wait: true });
      processes.push(...(result.completion?.processes ?? []));
      cursor = result.completion?.nextCursor;
    } while (cursor !== undefined);
    return processes;
  }

  /** The last `tailLines` (default 100) lines of the one process the query selects. */
  async logs(
    query: Query,
    options: Omit<CommandOptions, 'wait'> & { tailLines?: number } = {},
  ): Promise<ProcessLogs[]> {
    const { tailLines, ...rest } = options;
    const user = this.actingUser(options);
    const data = tailLines === undefined ? { query, user } : { query, user, tailLines };
    validCommandData(CommandType.logs, data);
    const session = await this.sessionOf(query);
    const result = await this.send(CommandType.logs, data, { ...rest, wait: true }, session);
    return result.completion?.logs ?? [];
  }

  /**
   * Terminations, completions and broadcasts (or `filter.topics`) as they happen, filtered by
   * session. `await stream.ready()` before publishing a command whose events you want.
   */
  events(filter: EventFilter = {}): EventStream {
    const stream = new EventStream();
    const topics = (filter.topics ?? DEFAULT_EVENT_TOPICS).map((t) =>
      topicName(t, this.options.topicPrefix),
    );
    this.transport
      .subscribe({
        topics,
        from: filter.fromBeginning ? 'earliest' : 'latest',
        onRecord: async (record) => {
          const event = eventOf(record);
          if (event && matchesFilter(event, filter)) await stream.push(event);
        },
        onError: (error) => stream.fail(error),
      })
      .then(
        (subscription) => {
          this.subscriptions.add(subscription);
          stream.attach(async () => {
            this.subscriptions.delete(subscription);
            await subscription.close();
          });
        },
        (error: Error) => stream.fail(error),
      );
    return stream;
  }

  /** Stops waiting, closes every stream and the transport. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.waiters.failAll(new Error('the client was closed'));
    await Promise.allSettled([...this.subscriptions].map((s) => s.close()));
    await this.transport.close();
  }

  private actingUser(options: Pick<CommandOptions, 'user'>): string {
    return options.user ?? this.options.user;
  }

  private async send(
    type: CommandType,
    data: unknown,
    options: CommandOptions,
    fallbackSession?: string,
    serverTimeoutSeconds?: number,
  ): Promise<CommandResult> {
    if (this.closed) throw new Error('the client is closed');
    const commandId = options.commandId ?? randomUUID();
    const { record, session } = commandRecord({
      type,
      data,
      commandId,
      source: this.options.source,
      fallbackSession,
    });
    const commands = topicName('commands', this.options.topicPrefix);
    if (!options.wait) {
      await this.transport.publish(commands, [record]);
      return { commandId, type, session };
    }
    await this.startCompletionFeed();
    const completion = this.waiters.register(commandId);
    try {
      await this.transport.publish(commands, [record]);
    } catch (error) {
      this.waiters.forget(commandId, error as Error);
      throw error;
    }
    const timeout = waitMs(this.options, type, options.timeoutMs, serverTimeoutSeconds);
    const done = await this.within(completion, timeout, () => {
      const error = new CommandTimeoutError(commandId, type, session, timeout);
      this.waiters.forget(commandId, error);
      return error;
    });
    if (done.status === 'succeeded') return { commandId, type, session, completion: done };
    if (done.status === 'timed_out') {
      throw new CommandTimeoutError(commandId, type, session, timeout, done);
    }
    throw new CommandFailedError(done);
  }

  /** One consumer of `kpm.completions` for every wait, positioned before anything is published. */
  private startCompletionFeed(): Promise<void> {
    this.completionFeed ??= this.transport
      .subscribe({
        topics: [topicName('completions', this.options.topicPrefix)],
        from: 'latest',
        onRecord: (record) => this.completed(record),
        onError: (error) => {
          this.completionFeed = undefined; // the next wait starts a new consumer
          this.waiters.failAll(new CompletionFeedError(error));
        },
      })
      .then(
        (subscription) => void this.subscriptions.add(subscription),
        (error: Error) => {
          this.completionFeed = undefined;
          throw error;
        },
      );
    return this.completionFeed;
  }

  /**
   * Every client reads every completion on the topic: only those it awaits are validated in
   * full (a completion of 5000 processes is megabytes).
   */
  private completed(record: ReceivedRecord): void {
    if (this.waiters.size === 0 || !this.waiters.has(commandIdOf(record) ?? '')) return;
    const parsed = parseRecord(record.value, { expectedTypes: [CompletionType.commandCompleted] });
    if (parsed.ok && parsed.event.type === CompletionType.commandCompleted) {
      this.waiters.deliver(parsed.event.data);
    }
  }

  /**
   * The session a query concerns, for the record key: its own, else the one session its uuids
   * belong to (asked of the state service), so the command lands on that session's partition.
   */
  private async sessionOf(query: Query): Promise<string | undefined> {
    if (query.session !== undefined || !query.uuids?.length) return query.session;
    const sessions = new Set(
      (await this.ps({ uuids: query.uuids })).map((p) => p.description.metadata.session),
    );
    return sessions.size === 1 ? [...sessions][0] : undefined;
  }

  private async within<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(onTimeout()), ms);
    });
    try {
      return await Promise.race([work, expired]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The `data.commandId` of a completion record, without validating the rest. */
function commandIdOf(record: ReceivedRecord): string | undefined {
  try {
    const event = JSON.parse(record.value?.toString('utf8') ?? 'null') as {
      data?: { commandId?: unknown };
    } | null;
    const id = event?.data?.commandId;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
