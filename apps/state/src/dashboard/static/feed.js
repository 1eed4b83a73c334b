// Live and light: one snapshot, then every change from the stream applied as it comes. The
// stream resumes from the last change seen (the browser sends Last-Event-ID; a fresh stream is
// opened with ?after=); only when the service cannot resume (it restarted, or the page was away
// for too long) is the snapshot fetched again.
const KINDS = ['row', 'gone', 'command', 'completion', 'termination', 'broadcast'];
/** Twice the service's heartbeat: a stream silent longer is presumed dead. */
const SILENCE_MS = 25_000;

export class Feed {
  constructor({ onSnapshot, onChange, onStatus }) {
    this.onSnapshot = onSnapshot;
    this.onChange = onChange;
    this.onStatus = onStatus;
    this.cursor = '';
    this.lastHeardMs = 0;
    this.watchdog = setInterval(() => this.checkSilence(), 5_000);
  }

  async start() {
    this.source?.close();
    this.source = undefined;
    this.onStatus('loading', 'loading the snapshot…');
    try {
      const answer = await fetch('/v1/dashboard/snapshot');
      const snapshot = await answer.json();
      this.cursor = snapshot.cursor;
      this.onSnapshot(snapshot);
      this.open();
    } catch (error) {
      this.onStatus('reconnecting', `state service unreachable (${error.message}), retrying…`);
      setTimeout(() => void this.start(), 2_000);
    }
  }

  open() {
    this.source?.close();
    const source = new EventSource(`/v1/dashboard/stream?after=${encodeURIComponent(this.cursor)}`);
    this.source = source;
    this.lastHeardMs = Date.now();
    source.onopen = () => this.onStatus('live', 'live');
    source.onerror = () => this.onStatus('reconnecting', 'reconnecting…');
    for (const kind of KINDS)
      source.addEventListener(kind, (e) => {
        this.heard(e.lastEventId);
        this.onChange(kind, JSON.parse(e.data));
      });
    source.addEventListener('heartbeat', () => this.heard());
    source.addEventListener('reset', () => {
      source.close();
      void this.start();
    });
  }

  heard(id) {
    this.lastHeardMs = Date.now();
    if (id) this.cursor = id;
  }

  /** A stream that went quiet without an error (a dead proxy, a sleeping laptop) is replaced. */
  checkSilence() {
    if (this.source && Date.now() - this.lastHeardMs > SILENCE_MS) {
      this.onStatus('reconnecting', 'no heartbeat, reconnecting…');
      this.open();
    }
  }
}
