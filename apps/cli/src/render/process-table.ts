/** drunc's `ps` table: one row per process, status and exit code coloured by what they mean. */
import { ROLES, type ProcessInstance } from '@kpm/contracts';
import { renderTable, type Colours } from '../output';

const PROCESS_COLUMNS = [
  'session',
  'name',
  'tree',
  'role',
  'status',
  'exit',
  'reason',
  'node',
  'uuid',
] as const;

/** `ps --live`: the pod's phase as the cluster says it, after the table's status. */
export const LIVE_PROCESS_COLUMNS = [
  'session',
  'name',
  'tree',
  'role',
  'status',
  'live',
  'exit',
  'reason',
  'node',
  'uuid',
] as const;

/** A process with what the cluster says of its pod (`ps --live`). */
type LiveProcess = ProcessInstance & { live?: { alive: boolean; phase: string } };

export function withLiveness(
  processes: readonly ProcessInstance[],
  live: ReadonlyMap<string, { alive: boolean; phase: string }>,
): LiveProcess[] {
  return processes.map((p) => ({ ...p, live: live.get(p.uuid) }));
}

/**
 * The pod's phase, green when Running (drunc's is_alive); red when the table says RUNNING but
 * the cluster does not: the disagreement `--live` is there to show.
 */
export function liveText(p: LiveProcess, colours: Colours): string {
  if (!p.live) return '-';
  if (p.live.alive) return colours.green(p.live.phase);
  return p.statusCode === 'RUNNING' ? colours.red(p.live.phase) : colours.dim(p.live.phase);
}

/**
 * By session, then tree id (`0`, `0.1`, `0.1.1`, `0.2`, `1` …), processes without one last.
 * Names compare by code unit: sessions and pod names are DNS labels, and `localeCompare`'s
 * first call loads ICU's collator, 40 ms of a `kpm boot --wait` of 17 processes.
 */
function treeOrder(a: ProcessInstance, b: ProcessInstance): number {
  const session = ordinal(a.description.metadata.session, b.description.metadata.session);
  if (session !== 0) return session;
  const [ta, tb] = [a.description.metadata.treeId, b.description.metadata.treeId];
  if (ta === undefined || tb === undefined) {
    if (ta !== tb) return ta === undefined ? 1 : -1; // outside the tree: last
  } else {
    const [na, nb] = [ta.split('.').map(Number), tb.split('.').map(Number)];
    for (let i = 0; i < Math.max(na.length, nb.length); i++) {
      const d = (na[i] ?? -1) - (nb[i] ?? -1);
      if (d !== 0) return d;
    }
  }
  return ROLES.indexOf(a.role) - ROLES.indexOf(b.role) || ordinal(a.podName, b.podName);
}

function ordinal(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function exitText(code: number | undefined, colours: Colours): string {
  if (code === undefined) return '-';
  return code === 0 ? colours.green('0') : colours.red(String(code));
}

function statusText(status: string, colours: Colours): string {
  return status === 'RUNNING' ? colours.green(status) : colours.dim(status);
}

/**
 * Automatic restarts under the exit policy (docs/design.md §4 "Exit policy"), with the one
 * waiting for its backoff, a spent budget or a cancelled restart said after the count.
 */
export function restartsText(p: ProcessInstance, colours: Colours): string {
  const automatic = p.automatic;
  if (!automatic) return '-';
  const { restarts, last } = automatic;
  switch (last?.outcome) {
    case 'scheduled':
      return colours.yellow(
        `${restarts} (${last.attempt}/${last.of} due ${last.dueAt?.slice(11, 19)})`,
      );
    case 'exhausted':
      return colours.red(`${restarts} (budget spent)`);
    case 'cancelled':
      return `${restarts} (cancelled)`;
    default:
      return String(restarts);
  }
}

function processRows(processes: readonly LiveProcess[], colours: Colours) {
  return [...processes].sort(treeOrder).map((p) => ({
    session: p.description.metadata.session,
    name: p.description.metadata.name,
    pod: p.podName,
    tree: p.description.metadata.treeId ?? '-',
    role: p.role,
    status: statusText(p.statusCode, colours),
    live: liveText(p, colours),
    exit: exitText(p.returnCode, colours),
    reason: p.reason ?? '-',
    restarts: restartsText(p, colours),
    node: p.nodeName ?? p.description.metadata.hostname ?? '-',
    uuid: p.uuid,
  }));
}

/**
 * The table, or a line saying there is nothing to show. A `pod` column follows `name` when a
 * process's pod is not named as the process (drunc's names such as `dummy_boot_0`: the pod's
 * name derives from it), so `kubectl` can be pointed at it; a `restarts` column follows `reason`
 * when a process has an exit policy's history.
 */
export function formatProcessTable(
  processes: readonly LiveProcess[],
  colours: Colours,
  columns: readonly string[] = PROCESS_COLUMNS,
): string {
  if (processes.length === 0) return colours.dim('no processes');
  const renamed = processes.some((p) => p.podName !== p.description.metadata.name);
  const restarted = processes.some((p) => p.automatic !== undefined);
  const shown = columns.flatMap((c) => {
    if (c === 'name' && renamed && !columns.includes('pod')) return ['name', 'pod'];
    if (c === 'reason' && restarted && !columns.includes('restarts')) return ['reason', 'restarts'];
    return [c];
  });
  return renderTable(processRows(processes, colours), shown, colours);
}
