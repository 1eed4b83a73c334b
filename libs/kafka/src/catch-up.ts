/**
 * The partitions a reader still has to read up to a fixed end (exclusive): how a reader knows it
 * has caught up with what a topic held when it started. Keys are `topic/partition`.
 */
export class CatchUp {
  private readonly pending: Map<string, bigint>;

  constructor(ends: Iterable<readonly [string, bigint]>) {
    this.pending = new Map(ends);
  }

  static key(topic: string, partition: number): string {
    return `${topic}/${partition}`;
  }

  get remaining(): number {
    return this.pending.size;
  }

  get done(): boolean {
    return this.pending.size === 0;
  }

  /** The reader's position moved past `lastOffset`; true when that finished the partition. */
  advance(topic: string, partition: number, lastOffset: string): boolean {
    const key = CatchUp.key(topic, partition);
    const end = this.pending.get(key);
    if (end === undefined || BigInt(lastOffset) + 1n < end) return false;
    this.pending.delete(key);
    return true;
  }

  /** What is left to reach, as `topic/partition@end`. */
  left(): string {
    return [...this.pending].map(([key, end]) => `${key}@${end}`).join(', ');
  }
}
