import { EventEmitter } from 'node:events';
import { CommandType, CompletionType, ProcessEventType, TerminationType } from '@kpm/contracts';
import type { BootRecords } from '../drunc-gateway/boot-call-steps';
import { readRunTopics } from './run-topics';

interface Accepted {
  type: string;
  commandId: string;
  atMs: number;
}

/** Types whose records we keep; the many boot outcomes are only timed, never parsed. */
const WANTED = [
  ProcessEventType.bootAccepted,
  ProcessEventType.killAccepted,
  CompletionType.commandCompleted,
  TerminationType.processTerminated,
  CommandType.boot,
  CommandType.terminate,
];
const BOOT_OUTCOMES = [ProcessEventType.processBooted, ProcessEventType.processBootFailed];
const COMMAND_ID = /"commandId":"([^"]+)"/;

/** When a command's records reached Kafka (CreateTime, ms since the epoch). */
export interface CommandMoments {
  /** The command record on `kpm.commands`. */
  commandAtMs?: number;
  acceptedAtMs: number;
  /** Its first and last fact: boot outcomes of a boot, the session's terminations of a kill. */
  firstFactAtMs?: number;
  lastFactAtMs?: number;
  completionAtMs: number;
}

/**
 * When kpm's records reached Kafka (their CreateTime): the accepted facts by session, the
 * completions by command id and the terminations by pod uid. Lighter than the tests' probe: a
 * 5000-process boot must not be slowed down by its own observer.
 */
export class FactClock {
  readonly accepted = new Map<string, Accepted[]>();
  readonly completions = new Map<string, { atMs: number; status: string }>();
  readonly terminations = new Map<string, number>();
  /** The CreateTime of each first termination record, by session (the record's key). */
  readonly terminationsBySession = new Map<string, number[]>();
  /** Command records by command id (the CloudEvent id). */
  readonly commands = new Map<string, number>();
  /** The first and last boot outcome of each boot, by command id. */
  readonly bootOutcomes = new Map<string, { firstAtMs: number; lastAtMs: number }>();
  private readonly changed = new EventEmitter().setMaxListeners(0);
  private stopReading?: () => Promise<void>;

  constructor(
    private readonly brokers: string[],
    private readonly prefix: string,
  ) {}

  async start(): Promise<this> {
    this.stopReading = await readRunTopics({
      clientId: 'kpm-bench',
      brokers: this.brokers,
      prefix: this.prefix,
      topics: ['commands', 'process-events', 'completions', 'terminations'],
      maxWaitTimeInMs: 50,
      onMessage: (message) =>
        this.take(message.value, Number(message.timestamp), message.key?.toString() ?? ''),
    });
    return this;
  }

  private take(value: Buffer | null, atMs: number, key: string): void {
    if (!value) return;
    const text = value.toString('utf8');
    if (BOOT_OUTCOMES.some((type) => text.includes(type))) return this.outcome(text, atMs);
    if (!WANTED.some((type) => text.includes(type))) return;
    const event = JSON.parse(text) as { id: string; type: string; data: Record<string, unknown> };
    const data = event.data;
    if (event.type === CommandType.boot || event.type === CommandType.terminate) {
      this.commands.set(event.id, atMs);
    } else if (event.type === CompletionType.commandCompleted) {
      this.completions.set(String(data.commandId), { atMs, status: String(data.status) });
    } else if (event.type === TerminationType.processTerminated) {
      if (this.terminations.has(String(data.podUid))) return;
      this.terminations.set(String(data.podUid), atMs);
      const times = this.terminationsBySession.get(key) ?? [];
      times.push(atMs);
      this.terminationsBySession.set(key, times);
    } else if (
      event.type === ProcessEventType.bootAccepted ||
      event.type === ProcessEventType.killAccepted
    ) {
      const list = this.accepted.get(key) ?? [];
      list.push({ type: event.type, commandId: String(data.commandId), atMs });
      this.accepted.set(key, list);
    } else return;
    this.changed.emit('record');
  }

  private outcome(text: string, atMs: number): void {
    const commandId = COMMAND_ID.exec(text)?.[1];
    if (!commandId) return;
    const seen = this.bootOutcomes.get(commandId);
    if (!seen) this.bootOutcomes.set(commandId, { firstAtMs: atMs, lastAtMs: atMs });
    else seen.lastAtMs = Math.max(seen.lastAtMs, atMs);
  }

  /** Resolves once `check` returns a value (tried on every kept record), or fails after `timeoutMs`. */
  until<T>(what: string, check: () => T | undefined, timeoutMs: number): Promise<T> {
    return new Promise((resolve, reject) => {
      const attempt = () => {
        const value = check();
        if (value === undefined) return;
        done();
        resolve(value);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${what}: not seen within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.changed.off('record', attempt);
      };
      this.changed.on('record', attempt);
      attempt();
    });
  }

  /** The accepted fact of the session's latest command of `type`, if seen yet. */
  latestAccepted(session: string, type: string): Accepted | undefined {
    return this.accepted
      .get(session)
      ?.filter((a) => a.type === type)
      .pop();
  }

  /** The accepted fact of `type` for the session's latest command of that type, and its completion. */
  async command(
    session: string,
    type: string,
    timeoutMs: number,
  ): Promise<{ acceptedToCompletionMs: number; status: string; moments: CommandMoments }> {
    return this.until(
      `${type} of ${session} and its completion`,
      () => {
        const accepted = this.latestAccepted(session, type);
        const completion = accepted && this.completions.get(accepted.commandId);
        return (
          completion && {
            acceptedToCompletionMs: completion.atMs - accepted.atMs,
            status: completion.status,
            moments: this.moments(session, accepted, completion.atMs),
          }
        );
      },
      timeoutMs,
    );
  }

  private moments(session: string, accepted: Accepted, completionAtMs: number): CommandMoments {
    const moments: CommandMoments = {
      commandAtMs: this.commands.get(accepted.commandId),
      acceptedAtMs: accepted.atMs,
      completionAtMs,
    };
    if (accepted.type === ProcessEventType.bootAccepted) {
      const outcomes = this.bootOutcomes.get(accepted.commandId);
      return { ...moments, firstFactAtMs: outcomes?.firstAtMs, lastFactAtMs: outcomes?.lastAtMs };
    }
    const ended = (this.terminationsBySession.get(session) ?? []).filter(
      (at) => at >= accepted.atMs && at <= completionAtMs,
    );
    if (ended.length === 0) return moments;
    return { ...moments, firstFactAtMs: Math.min(...ended), lastFactAtMs: Math.max(...ended) };
  }

  /** The records of every boot of `session` whose completion has been seen, in no order. */
  bootRecords(session: string): BootRecords[] {
    const boots = (this.accepted.get(session) ?? []).filter(
      (a) => a.type === ProcessEventType.bootAccepted,
    );
    return boots.flatMap((accepted) => {
      const commandMs = this.commands.get(accepted.commandId);
      const outcomes = this.bootOutcomes.get(accepted.commandId);
      const completion = this.completions.get(accepted.commandId);
      if (commandMs === undefined || !outcomes || !completion) return [];
      return [
        {
          commandMs,
          acceptedMs: accepted.atMs,
          bootedMs: outcomes.firstAtMs,
          completionMs: completion.atMs,
        },
      ];
    });
  }

  async stop(): Promise<void> {
    await this.stopReading?.();
  }
}
