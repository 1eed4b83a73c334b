import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { CommandType, CompletionType, TerminationType, topicName } from '@kpm/contracts';

/**
 * Every command, completion and termination record under the soak's topic prefix, counted: a
 * command must have exactly one completion, a pod exactly one termination.
 */
export class Ledger {
  /** Command id → its type, from `kpm.commands`. */
  readonly commands = new Map<string, string>();
  /** Command id → how many completions named it. */
  readonly completions = new Map<string, number>();
  /** Pod uid → how many termination records, and the first one's CreateTime. */
  readonly terminations = new Map<string, { count: number; atMs: number }>();
  private consumer?: Consumer;

  constructor(
    private readonly brokers: string[],
    private readonly prefix: string,
  ) {}

  async start(): Promise<this> {
    const kafka = new Kafka({
      clientId: 'kpm-soak',
      brokers: this.brokers,
      logLevel: logLevel.NOTHING,
    });
    this.consumer = kafka.consumer({ groupId: `kpm-soak-${randomUUID()}`, maxWaitTimeInMs: 100 });
    await this.consumer.connect();
    await this.consumer.subscribe({
      topics: (['commands', 'completions', 'terminations'] as const).map((t) =>
        topicName(t, this.prefix),
      ),
      fromBeginning: true,
    });
    await this.consumer.run({
      eachMessage: ({ message }) => {
        if (message.value) this.take(message.value.toString('utf8'), Number(message.timestamp));
        return Promise.resolve();
      },
    });
    return this;
  }

  private take(text: string, atMs: number): void {
    const event = JSON.parse(text) as { id: string; type: string; data: Record<string, unknown> };
    if (event.type === CompletionType.commandCompleted) {
      const id = String(event.data.commandId);
      this.completions.set(id, (this.completions.get(id) ?? 0) + 1);
    } else if (event.type === TerminationType.processTerminated) {
      const uid = String(event.data.podUid);
      const seen = this.terminations.get(uid);
      if (seen) seen.count++;
      else this.terminations.set(uid, { count: 1, atMs });
    } else if ((Object.values(CommandType) as string[]).includes(event.type)) {
      this.commands.set(event.id, event.type);
    }
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}
