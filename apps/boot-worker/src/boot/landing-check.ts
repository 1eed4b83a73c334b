/**
 * An all-or-nothing boot (the command's `allOrNothing`): before anything is created, every process
 * must be able to land — one of its allowed hosts Ready and schedulable, or, when it names none,
 * some usable node. Otherwise the boot is refused with one error per process that cannot, saying
 * why for each of its hosts, so an operator sees the whole picture in one refusal. Pure: the boot
 * checks feed it the node verdicts of one listing.
 */
import type { FieldError } from '@kpm/contracts';
import type { NodeVerdict } from '@kpm/kube';
import type { PlannedProcess } from './planned-process';

export interface LandingView {
  /** The verdict on every host the boot's processes name. */
  verdicts: ReadonlyMap<string, NodeVerdict>;
  /** Whether some node takes a process that names no host. */
  anyUsableNode: boolean;
  /** Every node and whether it is usable (`n1 (usable), n2 (cordoned)`), for the message. */
  summary: string;
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
  for (const process of processes) {
    const why = whyNotLanding(process, view);
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
