/** Thrown after a failed transaction; kafkajs retries (re-fetches) rather than crashing. */
export class PartitionReset extends Error {
  readonly retriable = true;

  constructor(partition: number, cause: unknown) {
    super(`partition ${partition} was reset after a failed transaction: ${errorMessage(cause)}`);
    this.name = 'PartitionReset';
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
