// At a glance: one card per session with its stacked bar (running / exited 0 / failed /
// pending), owner, commands under way with their progress, and time since the last change.
import { ago, compareText, escapeHtml, STATE_LABELS, verb } from './format.js';

const BAR_ORDER = ['running', 'exited', 'failed', 'pending'];

function bar(counts) {
  const total = BAR_ORDER.reduce((sum, key) => sum + counts[key], 0) || 1;
  let x = 0;
  const rects = BAR_ORDER.filter((key) => counts[key] > 0).map((key) => {
    const width = (counts[key] / total) * 100;
    const rect = `<rect class="fill-${key}" x="${x}" y="0" width="${width}" height="10"><title>${counts[key]} ${STATE_LABELS[key]}</title></rect>`;
    x += width;
    return rect;
  });
  return `<svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">${rects.join('')}</svg>`;
}

function countsText(counts) {
  return BAR_ORDER.map(
    (key) =>
      `<span class="count" data-count="${key}"><i class="swatch fill-${key}"></i><b>${counts[key]}</b> ${STATE_LABELS[key]}</span>`,
  ).join('');
}

function commandLine(command, nowMs) {
  const known = command.pending !== undefined;
  const done = known && command.total ? command.total - command.pending : 0;
  const progress =
    known && command.total ? `<progress max="${command.total}" value="${done}"></progress>` : '';
  const waiting = known ? `${command.pending} pending` : 'under way';
  return `<li class="command" data-command="${escapeHtml(command.commandId)}">${escapeHtml(verb(command.commandType))} <span class="mono">${escapeHtml(command.commandId)}</span> · ${waiting} ${progress} <span class="muted">${ago(Date.parse(command.startedAt), nowMs)}</span></li>`;
}

export function renderSessions(root, store, selected, nowMs = Date.now()) {
  const sessions = [...store.sessions.values()].sort(
    (a, b) => b.lastChangeMs - a.lastChangeMs || compareText(a.session, b.session),
  );
  if (sessions.length === 0) {
    root.innerHTML =
      '<p class="muted">No sessions yet. Boot one: <code>npx kpm boot -f examples/demo-session.yaml --wait</code></p>';
    return;
  }
  root.innerHTML = sessions
    .map((s) => {
      const counts = { ...s.counts, pending: store.pendingOf(s.session) };
      const commands = store.commandsOf(s.session);
      const total = s.rows.size;
      return `<li class="session${s.session === selected ? ' selected' : ''}" data-session="${escapeHtml(s.session)}">
        <button class="session-pick" aria-pressed="${s.session === selected}"><span class="session-name">${escapeHtml(s.session)}</span>
        <span class="muted">${escapeHtml(s.owner || '—')} · ${total} process${total === 1 ? '' : 'es'} · changed <span class="changed" data-time="${s.lastChangeMs}">${ago(s.lastChangeMs, nowMs)}</span></span></button>
        ${bar(counts)}
        <div class="counts">${countsText(counts)}</div>
        ${commands.length ? `<ul class="commands">${commands.map((c) => commandLine(c, nowMs)).join('')}</ul>` : ''}
      </li>`;
    })
    .join('');
}

/** Only the "changed … ago" texts, every second, without redrawing the cards. */
export function tickSessions(root, nowMs = Date.now()) {
  for (const span of root.querySelectorAll('.changed'))
    span.textContent = ago(Number(span.dataset.time), nowMs);
}
