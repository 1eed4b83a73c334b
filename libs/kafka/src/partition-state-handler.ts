import type { OutboundRecord } from './event-producer';
import type { InboundRecord } from './inbound-record';

/** An output record; `partition` pins it (e.g. to the input's partition number). */
export interface TransactionalRecord extends OutboundRecord {
  topic: string;
  partition?: number;
}

/** Input positions at restore time: the first offset not yet processed, per topic. */
export type CommittedOffsets = ReadonlyMap<string, ReadonlyMap<number, string>>;

/** The state a TransactionalRunner keeps per partition number, written by the service. */
export interface PartitionStateHandler {
  /** Rebuild the state of these partition numbers; returns what each must publish first. */
  restore(
    partitions: readonly number[],
    committed: CommittedOffsets,
  ): Promise<Map<number, TransactionalRecord[]>>;
  /** Apply one batch of one input partition (offset order); returns what to publish with it. */
  process(partition: number, records: readonly InboundRecord[]): TransactionalRecord[];
  /**
   * When p next has work of its own, caused by time rather than input (a deadline, a snapshot
   * due): a time in ms since the epoch, or undefined for none. Asked after p's restore and after
   * each of its transactions.
   */
  nextWake?(partition: number): number | undefined;
  /**
   * That work, once due, in p's transaction order: what to publish, in a transaction of its own.
   * `positions` are p's input positions: every input before them is applied and committed.
   */
  wake?(
    partition: number,
    positions: ReadonlyMap<string, bigint>,
  ): TransactionalRecord[] | Promise<TransactionalRecord[]>;
  /**
   * p's last transaction (a batch's or a wake's) committed: what it decided is durable now, and
   * may be told (a completion's span).
   */
  committed?(partition: number): void;
  /** This member no longer owns p, or p's state is void after a failed transaction. */
  release(partition: number): void;
}
