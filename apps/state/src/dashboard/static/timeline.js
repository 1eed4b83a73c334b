// What happened: a strip of the last minutes (one mark per event, failures in the failure
// colour and drawn taller) and the latest events in words, newest first.
import { clock, escapeHtml } from './format.js';

/** The strip spans the session's recent history: the shortest of these that holds it. */
const WINDOWS_MIN = [1, 2, 5, 10, 15];
const LISTED = 80;
const KIND_LABELS = {
  termination: 'termination',
  completion: 'completion',
  broadcast: 'broadcast',
};

/** Status updates repeat the terminations listed beside them; the rest is news. */
const listed = (e) => e.broadcastType !== 'SUBPROCESS_STATUS_UPDATE';

function windowMinutes(events, nowMs) {
  const oldest = events.length ? nowMs - events[0].timeMs : 0;
  return WINDOWS_MIN.find((m) => m * 60_000 >= oldest) ?? WINDOWS_MIN.at(-1);
}

function strip(events, nowMs) {
  const minutes = windowMinutes(events, nowMs);
  const spanMs = minutes * 60_000;
  const width = 600;
  const marks = events
    .filter((e) => nowMs - e.timeMs <= spanMs)
    .map((e) => {
      const x = Math.min(width - 2, ((e.timeMs - (nowMs - spanMs)) / spanMs) * width);
      const h = e.failed ? 22 : e.kind === 'completion' ? 16 : 10;
      const kind = e.failed ? 'failed' : e.kind === 'completion' ? 'exited' : 'running';
      return `<rect class="fill-${kind}" x="${x.toFixed(1)}" y="${26 - h}" width="2" height="${h}"></rect>`;
    })
    .join('');
  return `<svg class="strip" viewBox="0 0 ${width} 28" preserveAspectRatio="none" role="img" aria-label="events of the last ${minutes} min: failures tall, completions medium">
<line x1="0" y1="26" x2="${width}" y2="26" class="axis-line"></line>${marks}</svg>
<div class="strip-axis"><span>−${minutes} min</span><span>now</span></div>`;
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
