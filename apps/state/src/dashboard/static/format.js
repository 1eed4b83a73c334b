// Small pure helpers shared by the dashboard's views.

/** The three outcomes a process row can show; pending processes have no row yet. */
export const STATES = ['failed', 'running', 'exited', 'pending'];

/** Labels said out loud next to every colour, so colour is never the only signal. */
export const STATE_LABELS = {
  running: 'running',
  exited: 'exited 0',
  failed: 'failed',
  pending: 'pending',
};

export const ROLES = [
  'root-controller',
  'segment-controller',
  'application',
  'infrastructure-applications',
  'unknown',
];

/** `failed` is any DEAD process whose exit code is not 0 (or unknown). */
export function stateOf(row) {
  if (row.status === 'RUNNING') return 'running';
  return row.exitCode === 0 ? 'exited' : 'failed';
}

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value) {
  return value === undefined || value === null
    ? ''
    : String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** "4 s ago", "3 min ago", "2 h ago" from a time in ms. */
export function ago(timeMs, nowMs = Date.now()) {
  if (!timeMs) return '—';
  const seconds = Math.max(0, Math.round((nowMs - timeMs) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86400)} d ago`;
}

/** "14:03:07" in the browser's time zone. */
export function clock(iso) {
  const time = Date.parse(iso);
  return Number.isNaN(time) ? '' : new Date(time).toLocaleTimeString([], { hour12: false });
}

/** Text in human order ("app-2" before "app-10"), one collator for every comparison. */
export const compareText = new Intl.Collator(undefined, { numeric: true }).compare;

/** A tree id as numbers, computed once per row: sorting 5,000 rows must not split strings. */
export function treeKey(treeId) {
  return treeId === undefined ? undefined : treeId.split('.').map(Number);
}

/** Tree ids compare part by part as numbers: 0.2 < 0.10; rows without one come last. */
export function compareTreeKeys(x, y) {
  if (x === y) return 0;
  if (x === undefined) return 1;
  if (y === undefined) return -1;
  const n = Math.max(x.length, y.length);
  for (let i = 0; i < n; i++) {
    if (x[i] === undefined) return -1;
    if (y[i] === undefined) return 1;
    if (x[i] !== y[i]) return x[i] - y[i];
  }
  return 0;
}

/** `daq.kpm.command.boot.v1` → `boot`. */
export function verb(commandType) {
  const match = /^daq\.kpm\.command\.([a-z-]+)\.v\d+$/.exec(commandType || '');
  return match ? match[1] : commandType || '';
}
