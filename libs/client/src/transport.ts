/**
 * What the client needs from a message bus, and nothing more: publish records and read topics
 * from a fixed start. Kafka implements it in production; an in-memory bus in unit tests.
 */
import type { EncodedRecord } from '@kpm/contracts';

/** A record as the client reads it. */
export interface ReceivedRecord {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: Buffer | null;
}

export interface SubscribeRequest {
  topics: readonly string[];
  /**
   * `latest`: every record written after `subscribe` resolved (the start is fixed before it
   * resolves, so a command published afterwards can never have its answer missed);
   * `earliest`: everything the topics retain.
   */
  from: 'latest' | 'earliest';
  /** Awaited before the next record: a slow reader slows the subscription down, nothing is dropped. */
  onRecord(record: ReceivedRecord): Promise<void> | void;
  /** The subscription stopped for good (e.g. the broker stayed unreachable); no record follows. */
  onError(error: Error): void;
}

export interface Subscription {
  close(): Promise<void>;
}

export interface ClientTransport {
  /** Resolves once the bus has acknowledged every record. */
  publish(topic: string, records: readonly EncodedRecord[]): Promise<void>;
  /** Resolves once the start positions are fixed (see `SubscribeRequest.from`). */
  subscribe(request: SubscribeRequest): Promise<Subscription>;
  /** Closes the producer and every subscription. */
  close(): Promise<void>;
}
