/**
 * The dashboard's change log: every change the page applies, numbered, so a page that lost its
 * stream resumes exactly where it stopped (`Last-Event-ID`) instead of fetching everything again.
 * A cursor is `<epoch>.<sequence>`; the epoch changes when the service restarts, so a cursor
 * from another life of the service is never mistaken for one of this life.
 *
 * Kept: the entries of the last `retention.maxAgeMs` (a page reconnects within seconds), at most
 * `capacity` of them. A count alone kept a long-running service's whole recent history: a
 * 30-minute soak filled 75,000 entries (about 70 MB) at 2,700 a minute, and the service never
 * gave them back. A page away longer than that starts again from a snapshot.
 */
import { randomBytes } from 'node:crypto';

export interface FeedEntry<T> {
  /** The cursor after this entry, the SSE id. */
  id: string;
  sequence: number;
  kind: string;
  data: T;
}

/** What a reconnecting page gets: the entries it missed, or why it must start again. */
type Resume<T> = { ok: true; entries: FeedEntry<T>[] } | { ok: false; reason: string };

export interface FeedRetention {
  /** How long ago a page may have left and still resume. */
  maxAgeMs: number;
  now: () => number;
}

export class FeedLog<T> {
  private readonly entries: FeedEntry<T>[] = [];
  /** When each entry was appended, beside `entries` (the entries go to pages as they are). */
  private readonly times: number[] = [];
  private sequence = 0;

  constructor(
    /** How many entries a page may miss and still resume. */
    private readonly capacity: number,
    readonly epoch: string = randomBytes(4).toString('hex'),
    private readonly retention?: FeedRetention,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new Error(`capacity must be a positive whole number, got ${capacity}`);
  }

  /** The cursor of the latest entry: a snapshot taken now is complete up to it. */
  get cursor(): string {
    return `${this.epoch}.${this.sequence}`;
  }

  append(kind: string, data: T): FeedEntry<T> {
    this.sequence++;
    const entry = { id: `${this.epoch}.${this.sequence}`, sequence: this.sequence, kind, data };
    this.entries.push(entry);
    this.times.push(this.retention?.now() ?? 0);
    this.trim();
    return entry;
  }

  /** Trimmed in bulk (amortised), not one shift per append of a 50,000-entry array. */
  private trim(): void {
    let drop = 0;
    if (this.entries.length > this.capacity + Math.floor(this.capacity / 2))
      drop = this.entries.length - this.capacity;
    if (this.retention) {
      const { maxAgeMs, now } = this.retention;
      const at = now();
      if (this.times[0] < at - maxAgeMs * 1.5) {
        const firstKept = this.times.findIndex((time) => time >= at - maxAgeMs);
        drop = Math.max(drop, firstKept < 0 ? this.times.length : firstKept);
      }
    }
    if (drop === 0) return;
    this.entries.splice(0, drop);
    this.times.splice(0, drop);
  }

  /**
   * Drops every entry older than `retention.maxAgeMs`, appended or not since: a service left
   * idle after a large session gives their memory back (the dashboard calls it on a timer).
   */
  trimExpired(): void {
    if (!this.retention) return;
    const { maxAgeMs, now } = this.retention;
    const at = now();
    const firstKept = this.times.findIndex((time) => time >= at - maxAgeMs);
    const drop = firstKept < 0 ? this.times.length : firstKept;
    if (drop === 0) return;
    this.entries.splice(0, drop);
    this.times.splice(0, drop);
  }

  /** The entries after `cursor`, if they are all still kept. */
  since(cursor: string): Resume<T> {
    const parsed = parseCursor(cursor);
    if (!parsed)
      return { ok: false, reason: `cursor ${JSON.stringify(cursor)} is not <epoch>.<sequence>` };
    if (parsed.epoch !== this.epoch)
      return {
        ok: false,
        reason: `cursor of epoch ${parsed.epoch}, this service is ${this.epoch}`,
      };
    if (parsed.sequence > this.sequence)
      return { ok: false, reason: `cursor ${parsed.sequence} is ahead of ${this.sequence}` };
    const oldest = this.entries.length > 0 ? this.entries[0].sequence : this.sequence + 1;
    if (parsed.sequence < oldest - 1)
      return {
        ok: false,
        reason: `entries after ${parsed.sequence} are no longer kept (oldest ${oldest})`,
      };
    return { ok: true, entries: this.entries.slice(parsed.sequence - (oldest - 1)) };
  }
}

export function parseCursor(cursor: string): { epoch: string; sequence: number } | undefined {
  const match = /^([0-9a-f]{1,32})\.(\d{1,15})$/.exec(cursor);
  return match ? { epoch: match[1], sequence: Number(match[2]) } : undefined;
}
