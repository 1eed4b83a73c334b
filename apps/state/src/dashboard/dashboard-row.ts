/**
 * A process as the dashboard lists it: the columns of the table and the tree, without the spec
 * (env, arguments, restriction), which the page fetches when someone opens a process. Keeps a
 * 5,000-process snapshot small enough to load in one go.
 */
import type { ProcessInstance } from '@kpm/contracts';

export interface DashboardRow {
  uuid: string;
  session: string;
  user: string;
  name: string;
  treeId?: string;
  role: string;
  status: string;
  exitCode?: number;
  reason?: string;
  node?: string;
  pod: string;
  bootedAt: string;
  terminatedAt?: string;
  /** Automatic restarts under the exit policy, and its last step in words (docs/design.md §4). */
  restarts?: number;
  automatic?: string;
}

export function dashboardRow(p: ProcessInstance): DashboardRow {
  const { metadata } = p.description;
  return {
    uuid: p.uuid,
    session: metadata.session,
    user: metadata.user,
    name: metadata.name,
    ...(metadata.treeId !== undefined ? { treeId: metadata.treeId } : {}),
    role: p.role,
    status: p.statusCode,
    ...(p.returnCode !== undefined ? { exitCode: p.returnCode } : {}),
    ...(p.reason !== undefined ? { reason: p.reason } : {}),
    ...((p.nodeName ?? metadata.hostname) ? { node: p.nodeName ?? metadata.hostname } : {}),
    pod: p.podName,
    bootedAt: p.bootedAt,
    ...(p.terminatedAt !== undefined ? { terminatedAt: p.terminatedAt } : {}),
    ...(p.automatic
      ? {
          restarts: p.automatic.restarts,
          ...(p.automatic.last
            ? { automatic: `${p.automatic.last.outcome}: ${p.automatic.last.message}` }
            : {}),
        }
      : {}),
  };
}
