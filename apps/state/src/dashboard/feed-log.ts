/**
 * The dashboard's change log: every change the page applies, numbered, so a page that lost its
 * stream resumes exactly where it stopped (`Last-Event-ID`) instead of fetching everything again.
 * A cursor is `<epoch>.<sequence>`; the epoch changes when the service restarts, so a cursor
 * from another life of the service is never mistaken for one of this life.
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

export class FeedLog<T> {
  private readonly entries: FeedEntry<T>[] = [];
  private sequence = 0;

  constructor(
    /** How many entries a page may miss and still resume. */
    private readonly capacity: number,
    readonly epoch: string = randomBytes(4).toString('hex'),
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
    // Trimmed in bulk (amortised), not one shift per append of a 50,000-entry array.
    if (this.entries.length > this.capacity + Math.floor(this.capacity / 2))
      this.entries.splice(0, this.entries.length - this.capacity);
    return entry;
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
