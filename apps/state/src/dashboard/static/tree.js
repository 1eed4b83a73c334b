// The tree: root controller and infrastructure on top, then each segment controller with its
// applications, laid out by tree id; each tile coloured by state and labelled (exit code on
// failures), dimmed when the filter leaves it out. Tiles are patched in place on a change.
import { compareText, compareTreeKeys, escapeHtml, STATE_LABELS, treeKey } from './format.js';

/** Above this many processes tiles shrink to squares (name in the tooltip, exit code kept). */
const COMPACT_OVER = 240;

function label(row) {
  const exit = row.state === 'failed' ? `, exit ${row.exitCode ?? '?'}` : '';
  return `${row.name} (${row.treeId ?? 'no tree id'}), ${STATE_LABELS[row.state]}${exit}`;
}

/** Each tree's tiles by uuid, so a change finds its tile without searching 5,000 of them. */
const tilesOf = new WeakMap();

const tileClass = (row, matches) => `tile s-${row.state}${matches(row) ? '' : ' dim'}`;

function tileInner(row) {
  const exit =
    row.state === 'failed'
      ? `<span class="tile-exit">${escapeHtml(row.exitCode ?? '?')}</span>`
      : '';
  return `<span class="tile-name">${escapeHtml(row.name)}</span>${exit}`;
}

function tileHtml(row, matches) {
  return `<button class="${tileClass(row, matches)}" data-uuid="${row.uuid}" aria-label="${escapeHtml(label(row))}">${tileInner(row)}</button>`;
}

/** root / infrastructure / segments (by the first two parts of the tree id) / the rest. */
function layout(rows) {
  const top = [];
  const segments = new Map();
  const others = [];
  const segment = (id) => {
    if (!segments.has(id)) segments.set(id, { id, controller: undefined, apps: [] });
    return segments.get(id);
  };
  for (const row of rows) {
    const parts = row.treeId ? row.treeId.split('.') : [];
    if (parts.length === 1) top.push(row);
    else if (parts.length === 2) segment(row.treeId).controller = row;
    else if (parts.length === 3) segment(parts.slice(0, 2).join('.')).apps.push(row);
    else others.push(row);
  }
  const byTree = (a, b) => compareTreeKeys(a.treeKey, b.treeKey) || compareText(a.name, b.name);
  top.sort(byTree);
  for (const s of segments.values()) s.apps.sort(byTree);
  others.sort(byTree);
  return {
    top,
    segments: [...segments.values()].sort((a, b) => compareTreeKeys(treeKey(a.id), treeKey(b.id))),
    others,
  };
}

function group(title, rows, matches, extraClass = '') {
  return `<section class="segment ${extraClass}"><h3>${title}</h3><div class="apps">${rows.map((r) => tileHtml(r, matches)).join('')}</div></section>`;
}

export function renderTree(root, session, matches) {
  const rows = session ? [...session.rows.values()] : [];
  if (rows.length === 0) {
    root.innerHTML = '<p class="muted">No processes in this session.</p>';
    tilesOf.set(root, new Map());
    return;
  }
  const { top, segments, others } = layout(rows);
  const parts = [];
  if (top.length) parts.push(group('root &amp; infrastructure', top, matches, 'top'));
  for (const s of segments) {
    const controller = s.controller
      ? tileHtml(s.controller, matches)
      : '<span class="muted">no controller</span>';
    const failed = s.apps.filter((r) => r.state === 'failed').length;
    parts.push(
      `<section class="segment" data-segment="${escapeHtml(s.id)}"><h3>segment ${escapeHtml(s.id)} ${controller} <span class="muted">${s.apps.length} applications${failed ? `, <b class="t-failed">${failed} failed</b>` : ''}</span></h3><div class="apps">${s.apps.map((r) => tileHtml(r, matches)).join('')}</div></section>`,
    );
  }
  if (others.length) parts.push(group('outside the tree', others, matches));
  root.classList.toggle('compact', rows.length > COMPACT_OVER);
  root.innerHTML = parts.join('');
  tilesOf.set(root, new Map([...root.querySelectorAll('.tile')].map((t) => [t.dataset.uuid, t])));
}

/** A process whose place in the tree did not change: its tile is updated where it is. */
export function patchTile(root, row, matches) {
  const tile = tilesOf.get(root)?.get(row.uuid);
  if (!tile) return false;
  tile.className = tileClass(row, matches);
  tile.setAttribute('aria-label', label(row));
  tile.removeAttribute('title');
  tile.innerHTML = tileInner(row);
  return true;
}

/** Tooltips are added on hover: 5,000 of them up front would double the tree's markup. */
export function titleOnHover(root) {
  root.addEventListener('mouseover', (e) => {
    const tile = e.target.closest('.tile');
    if (tile && !tile.title) tile.title = tile.getAttribute('aria-label');
  });
}

/** The filter changed: dim what it leaves out, without rebuilding the tree. */
export function dimTiles(root, session, matches) {
  for (const [uuid, tile] of tilesOf.get(root) || []) {
    const row = session && session.rows.get(uuid);
    if (row) tile.classList.toggle('dim', !matches(row));
  }
}
