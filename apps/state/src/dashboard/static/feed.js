// Live and light: one snapshot, then every change from the stream applied as it comes. The
// stream resumes from the last change seen (a new stream is opened with ?after=<cursor>); only
// when the service cannot resume (it restarted, or the page was away for too long) is the
// snapshot fetched again. The stream is read with fetch, not EventSource, so it carries the
// Authorization header like every other request (an EventSource cannot send one).
import { api, refusal } from './auth.js';

const KINDS = ['row', 'gone', 'command', 'completion', 'termination', 'broadcast'];
/** Twice the service's heartbeat: a stream silent longer is presumed dead. */
const SILENCE_MS = 25_000;
const RECONNECT_MS = 1_000;

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
    this.stream?.abort();
    this.stream = undefined;
    this.onStatus('loading', 'loading the snapshot…');
    try {
      const answer = await api('/v1/dashboard/snapshot');
      if (!answer.ok) throw new Error(`refused, ${await refusal(answer)}`);
      const snapshot = await answer.json();
      this.cursor = snapshot.cursor;
      this.onSnapshot(snapshot);
      this.open();
    } catch (error) {
      this.onStatus('reconnecting', `state service: ${error.message}, retrying…`);
      setTimeout(() => void this.start(), 2_000);
    }
  }

  /** Follows the stream; when it ends or fails, opens a new one from the cursor. */
  open() {
    this.stream?.abort();
    const stream = (this.stream = new AbortController());
    this.lastHeardMs = Date.now();
    this.follow(stream)
      .then(
        () => RECONNECT_MS,
        (error) => error.retryMs ?? RECONNECT_MS,
      )
      .then((waitMs) => {
        if (this.stream !== stream) return;
        this.onStatus('reconnecting', 'reconnecting…');
        setTimeout(() => this.stream === stream && this.open(), waitMs);
      });
  }

  async follow(stream) {
    const path = `/v1/dashboard/stream?after=${encodeURIComponent(this.cursor)}`;
    const answer = await api(path, { signal: stream.signal });
    if (!answer.ok) throw refusedStream(answer);
    this.onStatus('live', 'live');
    const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done || this.stream !== stream) return;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = parseFrame(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (frame) this.handle(frame);
        if (this.stream !== stream) return;
      }
    }
  }

  handle({ event, id, data }) {
    if (event === 'heartbeat') this.heard();
    else if (event === 'reset') void this.start();
    else if (KINDS.includes(event)) {
      this.heard(id);
      this.onChange(event, JSON.parse(data));
    }
  }

  heard(id) {
    this.lastHeardMs = Date.now();
    if (id) this.cursor = id;
  }

  /** A stream that went quiet without an error (a dead proxy, a sleeping laptop) is replaced. */
  checkSilence() {
    if (this.stream && Date.now() - this.lastHeardMs > SILENCE_MS) {
      this.onStatus('reconnecting', 'no heartbeat, reconnecting…');
      this.open();
    }
  }
}

/** A refused stream; a full service (503) says when to try again. */
function refusedStream(answer) {
  const error = new Error(`the stream was refused (${answer.status})`);
  const retryAfterSeconds = Number(answer.headers.get('Retry-After'));
  if (retryAfterSeconds > 0) error.retryMs = retryAfterSeconds * 1000;
  return error;
}

/** One Server-Sent Event (`id:`, `event:`, `data:` lines); a frame without data is none. */
function parseFrame(frame) {
  const fields = {};
  for (const line of frame.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
  }
  if (fields.data === undefined) return undefined;
  return { event: fields.event ?? 'message', id: fields.id, data: fields.data };
}
