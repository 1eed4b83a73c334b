import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { CompletionType, ProcessEventType, TerminationType, topicName } from '@kpm/contracts';

interface Accepted {
  type: string;
  commandId: string;
  atMs: number;
}

/** Types whose records we keep; the many `process.booted` facts are skipped unparsed. */
const WANTED = [
  ProcessEventType.bootAccepted,
  ProcessEventType.killAccepted,
  CompletionType.commandCompleted,
  TerminationType.processTerminated,
];

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
  private readonly changed = new EventEmitter().setMaxListeners(0);
  private consumer?: Consumer;

  constructor(
    private readonly brokers: string[],
    private readonly prefix: string,
  ) {}

  async start(): Promise<this> {
    const kafka = new Kafka({
      clientId: 'kpm-bench',
      brokers: this.brokers,
      logLevel: logLevel.NOTHING,
    });
    this.consumer = kafka.consumer({ groupId: `kpm-bench-${randomUUID()}`, maxWaitTimeInMs: 50 });
    await this.consumer.connect();
    await this.consumer.subscribe({
      topics: ['process-events', 'completions', 'terminations'].map((t) =>
        topicName(t as 'completions', this.prefix),
      ),
      fromBeginning: true,
    });
    await this.consumer.run({
      eachMessage: ({ message }) => {
        this.take(message.value, Number(message.timestamp), message.key?.toString() ?? '');
        return Promise.resolve();
      },
    });
    return this;
  }

  private take(value: Buffer | null, atMs: number, key: string): void {
    if (!value) return;
    const text = value.toString('utf8');
    if (!WANTED.some((type) => text.includes(type))) return;
    const event = JSON.parse(text) as { type: string; data: Record<string, unknown> };
    const data = event.data;
    if (event.type === CompletionType.commandCompleted) {
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
  ): Promise<{ acceptedToCompletionMs: number; status: string }> {
    return this.until(
      `${type} of ${session} and its completion`,
      () => {
        const accepted = this.latestAccepted(session, type);
        const completion = accepted && this.completions.get(accepted.commandId);
        return (
          completion && {
            acceptedToCompletionMs: completion.atMs - accepted.atMs,
            status: completion.status,
          }
        );
      },
      timeoutMs,
    );
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}
