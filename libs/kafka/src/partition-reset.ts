import { errorText } from '@kpm/common';

/** Thrown after a failed transaction; kafkajs retries (re-fetches) rather than crashing. */
export class PartitionReset extends Error {
  readonly retriable = true;

  constructor(partition: number, cause: unknown) {
    super(`partition ${partition} was reset after a failed transaction: ${errorText(cause)}`);
    this.name = 'PartitionReset';
  }
}
