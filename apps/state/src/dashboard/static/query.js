// The view's choices — session, filter, sort, open process — live in the URL, so a link shows
// a colleague exactly the same thing.
import { compareText, compareTreeKeys } from './format.js';

export const FILTER_KEYS = ['status', 'role', 'exit', 'node', 'name'];
const DEFAULT_SORT = 'failures';

export function readQuery(search) {
  const p = new URLSearchParams(search);
  const query = { session: p.get('session') || '', process: p.get('process') || '' };
  for (const key of FILTER_KEYS) query[key] = p.get(key) || '';
  query.sort = p.get('sort') || DEFAULT_SORT;
  query.dir = p.get('dir') === 'desc' ? 'desc' : 'asc';
  return query;
}

export function writeQuery(query) {
  const p = new URLSearchParams();
  if (query.session) p.set('session', query.session);
  for (const key of FILTER_KEYS) if (query[key]) p.set(key, query[key]);
  if (query.sort !== DEFAULT_SORT) p.set('sort', query.sort);
  if (query.dir === 'desc') p.set('dir', 'desc');
  if (query.process) p.set('process', query.process);
  const text = p.toString();
  return text ? `?${text}` : location.pathname;
}

/** The name filter is a case-insensitive regex, or plain text while it is not a valid one. */
function nameMatcher(text) {
  if (!text) return () => true;
  try {
    const re = new RegExp(text, 'i');
    return (name) => re.test(name);
  } catch {
    const lower = text.toLowerCase();
    return (name) => name.toLowerCase().includes(lower);
  }
}

export function matcher(query) {
  const name = nameMatcher(query.name);
  return (row) =>
    (!query.status || row.state === query.status) &&
    (!query.role || row.role === query.role) &&
    (!query.exit || String(row.exitCode ?? '') === query.exit) &&
    (!query.node || (row.node || '') === query.node) &&
    name(row.name);
}

/** Failures first, then running, then exited 0: what a shifter looks at first. */
const STATE_RANK = { failed: 0, running: 1, exited: 2 };

const byText = (key) => (a, b) => compareText(String(a[key] ?? ''), String(b[key] ?? ''));
const COLUMNS = {
  name: byText('name'),
  treeId: (a, b) => compareTreeKeys(a.treeKey, b.treeKey),
  role: byText('role'),
  state: (a, b) => STATE_RANK[a.state] - STATE_RANK[b.state],
  exitCode: (a, b) => (a.exitCode ?? -1) - (b.exitCode ?? -1),
  reason: byText('reason'),
  node: byText('node'),
  pod: byText('pod'),
  bootedAt: byText('bootedAt'),
  terminatedAt: byText('terminatedAt'),
};
export const SORTABLE = Object.keys(COLUMNS);

export function comparator(query) {
  const tie = (a, b) => compareTreeKeys(a.treeKey, b.treeKey) || compareText(a.name, b.name);
  if (query.sort === DEFAULT_SORT || !COLUMNS[query.sort])
    return (a, b) => COLUMNS.state(a, b) || tie(a, b);
  const column = COLUMNS[query.sort];
  const sign = query.dir === 'desc' ? -1 : 1;
  return (a, b) => sign * column(a, b) || tie(a, b);
}
