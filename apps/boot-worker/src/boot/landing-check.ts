/**
 * An all-or-nothing boot (the command's `allOrNothing`): before anything is created, every process
 * must be able to land — one of its allowed hosts Ready and schedulable, or, when it names none,
 * some usable node — and fit there: what it requests (a readout process: its host_config's
 * resources and hugepages on that host) within what the node offers less what its pods and the
 * boot's earlier processes take. Otherwise the boot is refused with one error per process that
 * cannot, saying why, so an operator sees the whole picture in one refusal. Pure: the boot checks
 * feed it the node verdicts of one listing and what each named host's pods request.
 */
import type { FieldError } from '@kpm/contracts';
import { formatQuantity, type NodeVerdict } from '@kpm/kube';
import type { PlannedProcess } from './planned-process';

export interface LandingView {
  /** The verdict on every host the boot's processes name. */
  verdicts: ReadonlyMap<string, NodeVerdict>;
  /** Whether some node takes a process that names no host. */
  anyUsableNode: boolean;
  /** Every node and whether it is usable (`n1 (usable), n2 (cordoned)`), for the message. */
  summary: string;
  /**
   * What each usable named host that tells its allocatable has free (allocatable less what its
   * pods request), by resource; a host absent here is not checked for fit.
   */
  free?: ReadonlyMap<string, Record<string, number>>;
  /** What `process` requests on `host`, by resource. */
  demand?: (process: PlannedProcess, host: string) => Record<string, number>;
}

/** The hosts the boot's processes name, each once: what the verdicts must cover. */
export function namedHosts(processes: readonly PlannedProcess[]): string[] {
  return [...new Set(processes.flatMap((p) => p.spec.restriction?.allowedHosts ?? []))];
}

export function landingRefusals(
  processes: readonly PlannedProcess[],
  view: LandingView,
): FieldError[] {
  const errors: FieldError[] = [];
  const left = new Map([...(view.free ?? [])].map(([host, free]) => [host, { ...free }]));
  for (const process of processes) {
    const why = whyNotLanding(process, view) ?? whyNotFitting(process, view, left);
    if (why) {
      errors.push({
        path: `processes[${process.index}]`,
        message: `${JSON.stringify(process.spec.name)} cannot land: ${why}`,
      });
    }
  }
  if (errors.length === 0) return [];
  const head = {
    path: 'allOrNothing',
    message: `the boot is all-or-nothing and ${errors.length} of ${processes.length} processes cannot land: nothing was created`,
  };
  return [head, ...errors];
}

function whyNotLanding(process: PlannedProcess, view: LandingView): string | undefined {
  const hosts = process.spec.restriction?.allowedHosts ?? [];
  if (hosts.length === 0) {
    return view.anyUsableNode ? undefined : `no node is Ready and schedulable: ${view.summary}`;
  }
  const verdicts = hosts.map(
    (host) =>
      view.verdicts.get(host) ?? { name: host, usable: false, reason: 'not part of the cluster' },
  );
  if (verdicts.some((v) => v.usable)) return undefined;
  return `no allowed host is Ready and schedulable: ${verdicts.map((v) => `${v.name} (${v.reason})`).join(', ')}`;
}

/**
 * Where the process lands (its first usable allowed host, as the placement picks) and whether
 * what it requests fits in what that host has `left`, which it then takes. In boot order: an
 * earlier process has the room first, as the boot creates it first.
 */
function whyNotFitting(
  process: PlannedProcess,
  view: LandingView,
  left: Map<string, Record<string, number>>,
): string | undefined {
  const host = (process.spec.restriction?.allowedHosts ?? []).find(
    (h) => view.verdicts.get(h)?.usable,
  );
  const free = host && left.get(host);
  if (!host || !free || !view.demand) return undefined;
  const demand = view.demand(process, host);
  const short = Object.entries(demand).filter(([resource, value]) => value > (free[resource] ?? 0));
  if (short.length > 0) {
    const what = short.map(([resource, value]) => {
      const has = free[resource] ?? 0;
      return `${resource} ${formatQuantity(resource, value)} where ${formatQuantity(resource, Math.max(0, has))} is free`;
    });
    return `it does not fit on ${host}: it requests ${what.join(', ')} (the node's allocatable less what its pods and this boot's earlier processes request)`;
  }
  for (const [resource, value] of Object.entries(demand)) free[resource] -= value;
  return undefined;
}
