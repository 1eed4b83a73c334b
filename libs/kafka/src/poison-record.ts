/**
 * Thrown by a record handler when retrying cannot help (the bytes are not a CloudEvent, or the
 * event can never be applied): the consumer dead-letters the record and moves the offset on.
 */
export class PoisonRecordError extends Error {
  constructor(
    readonly reason: string,
    readonly errors: ReadonlyArray<{ path?: string; message: string }> = [],
  ) {
    super(reason);
    this.name = 'PoisonRecordError';
  }
}
