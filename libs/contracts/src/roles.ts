/**
 * drunc's roles and shutdown order (docs/design.md §6.2), as pure functions.
 *
 * drunc decides a role from the tree id **and the executable**: its driver numbers the root
 * controller `0`, each segment's controller and each segment's applications `0.…` alike (the
 * applications of the root segment are `0.0`, `0.1`, … — the same ids as the sub-segments'
 * controllers), and the infrastructure applications `1`, `2`, …. Only the executable tells a
 * controller from an application. Kill stages follow drunc's order so that applications stop
 * before the controllers that watch them, segment controllers deepest first, infrastructure last.
 */
import type { Role } from './event-types';
import { TREE_ID } from './validation/rules';

/** The executables drunc counts as controllers (`drunc-controller`, by name or by path). */
export const DRUNC_CONTROLLER_EXECUTABLES: readonly string[] = ['drunc-controller'];

/** What a role is decided from: a ProcessSpec or drunc's BootRequest, in kpm's names. */
export interface RoleInput {
  treeId?: string;
  executableAndArguments?: readonly { exec: string }[];
}

/** Whether one of the process's commands runs a controller executable (by name or path). */
export function runsController(
  process: RoleInput,
  controllerExecutables: readonly string[] = DRUNC_CONTROLLER_EXECUTABLES,
): boolean {
  return (process.executableAndArguments ?? []).some(({ exec }) => {
    const name = exec.slice(exec.lastIndexOf('/') + 1);
    return controllerExecutables.includes(exec) || controllerExecutables.includes(name);
  });
}

/**
 * drunc's rule: no tree id → unknown; `0` → root-controller if it runs a controller, else
 * infrastructure-applications; `0.…` at any depth → segment-controller if it runs a controller,
 * else application; any other tree id (`1`, `2`, `3.1`) → infrastructure-applications.
 */
export function roleOf(
  process: RoleInput,
  controllerExecutables: readonly string[] = DRUNC_CONTROLLER_EXECUTABLES,
): Role {
  const { treeId } = process;
  if (treeId === undefined || !TREE_ID.test(treeId)) return 'unknown';
  const controller = runsController(process, controllerExecutables);
  if (treeId === '0') return controller ? 'root-controller' : 'infrastructure-applications';
  if (treeId.startsWith('0.')) return controller ? 'segment-controller' : 'application';
  return 'infrastructure-applications';
}

/** drunc's shutdown order: unknown first, infrastructure (which the others use) last. */
export const SHUTDOWN_ORDER: readonly Role[] = [
  'unknown',
  'application',
  'segment-controller',
  'root-controller',
  'infrastructure-applications',
];

/** A segment controller's depth in the tree: the dots of its tree id (none: 0), as drunc counts. */
export function treeDepth(treeId?: string): number {
  return treeId ? treeId.split('.').length - 1 : 0;
}

/**
 * Processes grouped into kill stages in shutdown order, segment controllers one stage per depth,
 * deepest first (drunc's `_kill_impl`); empty stages omitted, input order kept within a stage.
 */
export function shutdownGroups<T extends { role: Role; treeId?: string }>(
  processes: readonly T[],
): T[][] {
  return SHUTDOWN_ORDER.flatMap((role) => {
    const ofRole = processes.filter((p) => p.role === role);
    if (role !== 'segment-controller') return [ofRole];
    const depths = [...new Set(ofRole.map((p) => treeDepth(p.treeId)))].sort((a, b) => b - a);
    return depths.map((depth) => ofRole.filter((p) => treeDepth(p.treeId) === depth));
  }).filter((stage) => stage.length > 0);
}

/** The uuids of `shutdownGroups`: what `kill.accepted` carries as its stages. */
export function shutdownStages(
  processes: readonly { uuid: string; role: Role; treeId?: string }[],
): string[][] {
  return shutdownGroups(processes).map((stage) => stage.map((p) => p.uuid));
}
