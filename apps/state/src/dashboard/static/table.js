// The process table: filtered and sorted in memory, and only the rows in view are in the DOM
// (a fixed row height makes the window a division), so 5,000 processes scroll smoothly.
import { clock, escapeHtml, STATE_LABELS } from './format.js';

export const ROW_HEIGHT_PX = 26;
const OVERSCAN = 10;

export const COLUMNS = [
  ['name', 'name'],
  ['treeId', 'tree id'],
  ['role', 'role'],
  ['state', 'status'],
  ['exitCode', 'exit'],
  ['reason', 'reason'],
  ['node', 'node'],
  ['pod', 'pod'],
  ['bootedAt', 'booted'],
  ['terminatedAt', 'ended'],
];

export function renderHead(thead, query) {
  const cells = COLUMNS.map(([key, title]) => {
    const active = query.sort === key || (query.sort === 'failures' && key === 'state');
    const sort = active
      ? query.sort === 'failures'
        ? 'failures first'
        : query.dir === 'desc'
          ? 'descending'
          : 'ascending'
      : 'none';
    const arrow = !active
      ? ''
      : query.sort === 'failures'
        ? ' ⚑'
        : query.dir === 'desc'
          ? ' ▼'
          : ' ▲';
    const aria = active && query.sort !== 'failures' ? ` aria-sort="${sort}"` : '';
    return `<th${aria}><button class="sort" data-sort="${key}" title="sort by ${title}">${title}${arrow}</button></th>`;
  });
  thead.innerHTML = `<tr>${cells.join('')}</tr>`;
}

function rowHtml(row, selected) {
  const exit = row.exitCode === undefined ? '' : escapeHtml(row.exitCode);
  return `<tr class="prow${row.uuid === selected ? ' selected' : ''}" data-uuid="${row.uuid}">
<td class="name">${escapeHtml(row.name)}</td><td class="mono">${escapeHtml(row.treeId ?? '')}</td><td>${escapeHtml(row.role)}</td>
<td class="state"><i class="swatch fill-${row.state}"></i><span class="t-${row.state}">${STATE_LABELS[row.state]}</span></td>
<td class="exit${row.state === 'failed' ? ' t-failed' : ''}">${exit}</td><td>${escapeHtml(row.reason ?? '')}</td><td>${escapeHtml(row.node ?? '')}</td>
<td class="mono">${escapeHtml(row.pod)}</td><td class="mono">${clock(row.bootedAt)}</td><td class="mono">${row.terminatedAt ? clock(row.terminatedAt) : ''}</td></tr>`;
}

/** Draws the rows of `rows` that the scroll box shows, between two spacers. */
export function renderWindow(scroller, tbody, rows, selected) {
  const first = Math.max(0, Math.floor(scroller.scrollTop / ROW_HEIGHT_PX) - OVERSCAN);
  const visible = Math.ceil((scroller.clientHeight || 600) / ROW_HEIGHT_PX) + 2 * OVERSCAN;
  const last = Math.min(rows.length, first + visible);
  const above = first * ROW_HEIGHT_PX;
  const below = (rows.length - last) * ROW_HEIGHT_PX;
  const body = rows.slice(first, last).map((row) => rowHtml(row, selected));
  if (rows.length === 0)
    body.push(
      `<tr><td colspan="${COLUMNS.length}" class="muted">No process matches the filter.</td></tr>`,
    );
  // Heights set through the DOM, not a style attribute: the CSP allows no inline style.
  tbody.innerHTML = `<tr class="spacer"></tr>${body.join('')}<tr class="spacer"></tr>`;
  tbody.firstElementChild.style.height = `${above}px`;
  tbody.lastElementChild.style.height = `${below}px`;
}
