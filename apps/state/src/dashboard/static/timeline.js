// What happened: a strip of the last minutes (one mark per event, failures in the failure
// colour and drawn taller) and the latest events in words, newest first.
import { clock, escapeHtml } from './format.js';

const WINDOW_MS = 15 * 60 * 1000;
const LISTED = 80;
const KIND_LABELS = {
  termination: 'termination',
  completion: 'completion',
  broadcast: 'broadcast',
};

/** Status updates repeat the terminations listed beside them; the rest is news. */
const listed = (e) => e.broadcastType !== 'SUBPROCESS_STATUS_UPDATE';

function strip(events, nowMs) {
  const width = 600;
  const marks = events
    .filter((e) => nowMs - e.timeMs <= WINDOW_MS)
    .map((e) => {
      const x = ((e.timeMs - (nowMs - WINDOW_MS)) / WINDOW_MS) * width;
      const h = e.failed ? 22 : e.kind === 'completion' ? 16 : 10;
      const kind = e.failed ? 'failed' : e.kind === 'completion' ? 'exited' : 'running';
      return `<rect class="fill-${kind}" x="${x.toFixed(1)}" y="${26 - h}" width="2" height="${h}"></rect>`;
    })
    .join('');
  return `<svg class="strip" viewBox="0 0 ${width} 40" preserveAspectRatio="none" role="img" aria-label="events of the last 15 minutes">
<line x1="0" y1="26" x2="${width}" y2="26" class="axis-line"></line>${marks}
<text x="0" y="38" class="axis">−15 min</text><text x="${width}" y="38" text-anchor="end" class="axis">now</text></svg>`;
}

export function renderTimeline(root, store, session, nowMs = Date.now()) {
  const events = store.events.filter((e) => e.session === session);
  const items = events
    .filter(listed)
    .slice(-LISTED)
    .reverse()
    .map(
      (e) =>
        `<li class="event k-${e.kind}${e.failed ? ' failed' : ''}" data-kind="${e.kind}"${e.uuid ? ` data-uuid="${e.uuid}"` : ''}><span class="mono muted">${clock(new Date(e.timeMs).toISOString())}</span> <span class="kind">${KIND_LABELS[e.kind]}</span> ${escapeHtml(e.text)}</li>`,
    );
  root.innerHTML = `${strip(events, nowMs)}<ul class="events">${items.join('') || '<li class="muted">Nothing yet.</li>'}</ul>`;
}
