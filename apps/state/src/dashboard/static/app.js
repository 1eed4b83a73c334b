// The dashboard's wiring: the feed fills the store, the URL holds the view's choices, and one
// animation frame redraws whatever changed since the last one.
import { api, takeTokenFromLink } from './auth.js';
import { renderDetails, fetchInstance, fetchLogs } from './details.js';
import { Feed } from './feed.js';
import { escapeHtml, ROLES, STATE_LABELS } from './format.js';
import { renderHistogram } from './histogram.js';
import { comparator, matcher, readQuery, writeQuery } from './query.js';
import { renderSessions, tickSessions } from './sessions.js';
import { Store } from './store.js';
import { renderHead, renderWindow } from './table.js';
import { renderTimeline } from './timeline.js';
import { dimTiles, patchTile, renderTree, titleOnHover } from './tree.js';

const $ = (id) => document.getElementById(id);
const store = new Store();
let query = readQuery(location.search);
let visible = [];
let details = { uuid: '', instance: undefined, logs: undefined };
let dirty = { view: true, filter: true };
let frame = 0;
/** Render timings for people (the footer) and for the browser test. */
const perf = (window.kpmDashboard = {
  firstRenderMs: undefined,
  drawnAtMs: undefined,
  lastRenderMs: undefined,
});

function schedule(what = {}) {
  Object.assign(dirty, what);
  if (!frame) frame = requestAnimationFrame(render);
}

function chosenSession() {
  if (query.session && store.sessions.has(query.session)) return query.session;
  const sessions = [...store.sessions.values()].sort((a, b) => b.lastChangeMs - a.lastChangeMs);
  return sessions[0]?.session || '';
}

function render() {
  frame = 0;
  const started = performance.now();
  const name = chosenSession();
  const session = store.sessions.get(name);
  const matches = matcher(query);
  const changes = store.changes;
  if (changes.sessions || dirty.view) renderSessions($('sessions'), store, name);
  if (dirty.view || changes.structure.has(name)) renderTree($('tree'), session, matches);
  else {
    for (const uuid of changes.tiles) {
      const row = store.rows.get(uuid);
      if (row && row.session === name) patchTile($('tree'), row, matches);
    }
    if (dirty.filter) dimTiles($('tree'), session, matches);
  }
  const tableChanged =
    dirty.view ||
    dirty.filter ||
    changes.structure.has(name) ||
    [...changes.tiles].some((u) => store.rows.get(u)?.session === name);
  if (tableChanged)
    visible = session ? [...session.rows.values()].filter(matches).sort(comparator(query)) : [];
  if (tableChanged || dirty.scroll)
    renderWindow($('table-scroll'), $('rows'), visible, query.process);
  if (dirty.view) renderHead($('thead'), query);
  if (changes.sessions || dirty.view) renderHistogram($('histogram'), session);
  if (changes.events || dirty.view) renderTimeline($('timeline'), store, name);
  if (changes.events || dirty.view || dirty.details || changes.tiles.has(query.process))
    renderDetails($('details'), store, query.process, details);
  renderSummary(name, session);
  store.resetChanges();
  dirty = {};
  const ms = performance.now() - started;
  perf.lastRenderMs = ms;
  if (perf.firstRenderMs === undefined && store.rows.size > 0) {
    perf.firstRenderMs = ms;
    // After the browser laid out and painted what was drawn, not merely built it.
    requestAnimationFrame(() => setTimeout(() => (perf.drawnAtMs = performance.now())));
  }
  $('render-time').textContent = `last redraw ${ms.toFixed(0)} ms`;
}

function renderSummary(name, session) {
  $('selected-session').textContent = name || '—';
  $('match-count').textContent = session ? `${visible.length} of ${session.rows.size} shown` : '';
  $('total').textContent = `${store.rows.size} processes · ${store.sessions.size} sessions`;
  document.title =
    session && session.counts.failed
      ? `(${session.counts.failed} failed) kpm · ${name}`
      : `kpm · ${name || 'dashboard'}`;
  syncFilterInputs();
}

function setQuery(change, what = { view: true, filter: true }) {
  query = { ...query, ...change };
  history.replaceState(null, '', writeQuery(query));
  schedule(what);
}

function syncFilterInputs() {
  for (const key of ['status', 'role', 'exit', 'node', 'name']) {
    const input = $(`f-${key}`);
    if (document.activeElement !== input && input.value !== query[key]) input.value = query[key];
  }
  const nodes = new Set([...store.rows.values()].map((r) => r.node).filter(Boolean));
  const options = ['', ...[...nodes].sort()];
  const select = $('f-node');
  if (select.options.length !== options.length)
    select.innerHTML = options
      .map((n) => `<option value="${escapeHtml(n)}">${n ? escapeHtml(n) : 'any node'}</option>`)
      .join('');
  select.value = query.node;
}

async function openProcess(uuid) {
  details = { uuid, instance: undefined, logs: undefined };
  setQuery({ process: uuid }, { details: true, scroll: true });
  const instance = await fetchInstance(uuid).catch(() => undefined);
  if (details.uuid !== uuid) return;
  details.instance = instance;
  schedule({ details: true });
}

function wire() {
  // Filters apply as they are typed; Enter submits nothing.
  document.querySelector('form.filters').addEventListener('submit', (e) => e.preventDefault());
  $('f-status').innerHTML =
    `<option value="">any status</option>${['failed', 'running', 'exited'].map((s) => `<option value="${s}">${STATE_LABELS[s]}</option>`).join('')}`;
  $('f-role').innerHTML =
    `<option value="">any role</option>${ROLES.map((r) => `<option value="${r}">${r}</option>`).join('')}`;
  for (const key of ['status', 'role', 'node'])
    $(`f-${key}`).addEventListener('change', (e) =>
      setQuery({ [key]: e.target.value }, { filter: true }),
    );
  for (const key of ['exit', 'name'])
    $(`f-${key}`).addEventListener('input', (e) =>
      setQuery({ [key]: e.target.value.trim() }, { filter: true }),
    );
  $('f-clear').addEventListener('click', () =>
    setQuery({ status: '', role: '', exit: '', node: '', name: '' }, { filter: true }),
  );
  $('sessions').addEventListener('click', (e) => {
    const card = e.target.closest('[data-session]');
    if (card) setQuery({ session: card.dataset.session, process: '' });
  });
  $('thead').addEventListener('click', (e) => {
    const button = e.target.closest('[data-sort]');
    if (!button) return;
    const key = button.dataset.sort;
    const dir = query.sort === key && query.dir === 'asc' ? 'desc' : 'asc';
    setQuery({ sort: key, dir });
  });
  $('reset-sort').addEventListener('click', () => setQuery({ sort: 'failures', dir: 'asc' }));
  const pick = (e) => {
    const target = e.target.closest('[data-uuid]');
    if (target && store.rows.has(target.dataset.uuid)) void openProcess(target.dataset.uuid);
  };
  $('tree').addEventListener('click', pick);
  titleOnHover($('tree'));
  $('rows').addEventListener('click', pick);
  $('timeline').addEventListener('click', pick);
  $('table-scroll').addEventListener('scroll', () => schedule({ scroll: true }), { passive: true });
  $('details').addEventListener('click', (e) => {
    if (e.target.closest('.close')) setQuery({ process: '' }, { details: true, scroll: true });
    if (e.target.closest('.fetch-logs')) void showLogs();
  });
  window.addEventListener(
    'popstate',
    () => ((query = readQuery(location.search)), schedule({ view: true, filter: true })),
  );
}

async function showLogs() {
  const row = store.rows.get(query.process);
  if (!row) return;
  const uuid = row.uuid;
  const update = (text) => {
    if (details.uuid !== uuid) return;
    details.logs = text;
    schedule({ details: true });
  };
  update(await fetchLogs(row, update));
}

/** Asks what open commands still wait for, so the bars show pending processes. */
async function pollCommands() {
  for (const command of [...store.commands.values()].slice(0, 20)) {
    const answer = await api(`/v1/dashboard/commands/${encodeURIComponent(command.commandId)}`)
      .then((r) => r.json())
      .catch(() => undefined);
    if (answer?.state === 'open') store.progress(command.commandId, answer.open.pending);
  }
  if (store.changes.sessions) schedule();
}

function status(kind, text) {
  const el = $('connection');
  el.className = `connection c-${kind}`;
  el.textContent = text;
}

takeTokenFromLink();
wire();
const feed = new Feed({
  onSnapshot: (snapshot) => {
    store.load(snapshot);
    perf.snapshotLoadedAtMs = performance.now();
    details = { uuid: query.process, instance: undefined, logs: undefined };
    if (query.process) void openProcess(query.process);
    schedule({ view: true, filter: true });
  },
  onChange: (kind, data) => {
    store.apply(kind, data);
    schedule();
  },
  onStatus: status,
});
void feed.start();
setInterval(() => tickSessions($('sessions')), 1_000);
setInterval(() => void pollCommands(), 1_500);
