/** What a command handler knows of the record it serves, without knowing Kafka or Nest. */
export interface CommandContext {
  /** The command's CloudEvent id. */
  commandId: string;
  /** The command's subject (its session and record key): every fact it causes carries it. */
  subject: string;
  /** Keeps the consumer's group membership during long work. */
  heartbeat(): Promise<void>;
  /** Aborted when the consumer stops: give up, the command is redelivered. */
  signal: AbortSignal;
}

/** Thrown when the consumer stops mid-command: the offset stays uncommitted, the command returns. */
export class StopRequested extends Error {
  constructor() {
    super('the boot-worker is stopping; the command will be redelivered');
    this.name = 'StopRequested';
  }
}

export function checkStopping(signal?: AbortSignal): void {
  if (signal?.aborted) throw new StopRequested();
}
