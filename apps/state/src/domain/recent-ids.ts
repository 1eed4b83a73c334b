/**
 * Ids remembered up to a capacity, the least recently added forgotten first: how the shard keeps
 * the per-command and per-pod sets it needs only for late duplicates from growing with history.
 * A restore suspends the bound (it replays the whole retention against the whole set, so no
 * replayed fact can miss its id) and trims once it is live again.
 */
export class RecentIds {
  private readonly ids = new Set<string>();
  private bounded = true;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new Error(`capacity must be a positive whole number, got ${capacity}`);
  }

  get size(): number {
    return this.ids.size;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** The ids, least recently added first (a snapshot keeps this order). */
  values(): IterableIterator<string> {
    return this.ids.values();
  }

  add(id: string): void {
    this.ids.delete(id); // re-adding makes it the most recent
    this.ids.add(id);
    if (this.bounded) this.trim();
  }

  /** Nothing is forgotten until `resume` (a restore). */
  suspend(): void {
    this.bounded = false;
  }

  resume(): void {
    this.bounded = true;
    this.trim();
  }

  private trim(): void {
    for (const oldest of this.ids) {
      if (this.ids.size <= this.capacity) return;
      this.ids.delete(oldest);
    }
  }
}
