import { CommandType, CompletionType, TerminationType } from '@kpm/contracts';
import { readRunTopics } from '../e2e/run-topics';

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
  private stopReading?: () => Promise<void>;

  constructor(
    private readonly brokers: string[],
    private readonly prefix: string,
  ) {}

  async start(): Promise<this> {
    this.stopReading = await readRunTopics({
      clientId: 'kpm-soak',
      brokers: this.brokers,
      prefix: this.prefix,
      topics: ['commands', 'completions', 'terminations'],
      maxWaitTimeInMs: 100,
      onMessage: (message) => {
        if (message.value) this.take(message.value.toString('utf8'), Number(message.timestamp));
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
    await this.stopReading?.();
  }
}
