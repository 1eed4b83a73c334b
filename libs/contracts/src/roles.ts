/**
 * drunc's roles and shutdown order (docs/design.md §6.2), as pure functions.
 *
 * A tree id is the process's position in the control tree: `0` is the root controller, a
 * single number an infrastructure application (e.g. the connectivity service), `1.2` a segment
 * controller and `1.2.3` an application. Kill stages follow drunc's order so that applications
 * stop before the controllers that watch them and infrastructure stops last.
 */
import type { Role } from './event-types';
import { TREE_ID } from './validation/rules';

export function roleFromTreeId(treeId?: string): Role {
  if (treeId === undefined || !TREE_ID.test(treeId)) return 'unknown';
  if (treeId === '0') return 'root-controller';
  const dots = treeId.split('.').length - 1;
  if (dots === 0) return 'infrastructure-applications';
  if (dots === 1) return 'segment-controller';
  if (dots === 2) return 'application';
  return 'unknown';
}

/** drunc's shutdown order: unknown first, infrastructure (which the others use) last. */
export const SHUTDOWN_ORDER: readonly Role[] = [
  'unknown',
  'application',
  'segment-controller',
  'root-controller',
  'infrastructure-applications',
];

/** Groups uuids into kill stages in shutdown order; empty stages are omitted, input order kept. */
export function shutdownStages(processes: readonly { uuid: string; role: Role }[]): string[][] {
  return SHUTDOWN_ORDER.map((role) =>
    processes.filter((p) => p.role === role).map((p) => p.uuid),
  ).filter((stage) => stage.length > 0);
}
