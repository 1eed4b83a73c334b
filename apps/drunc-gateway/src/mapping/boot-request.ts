/**
 * drunc's BootRequest as one process of a kpm boot: the ProcessDescription and
 * ProcessRestriction map field by field onto a ProcessSpec (pod semantics are the boot-worker's),
 * the token's user_name is kpm's `user`, metadata.session the session. What kpm has no place for
 * is refused naming the field rather than dropped.
 */
import type { Boot } from '@kpm/client';
import type { BootRequest } from '../wire/drunc-messages';
import type { FieldViolation } from '../wire/rich-status';

export type BootPlan = Boot & { processes: [Boot['processes'][number]] };

export type Planned<T> = { ok: true; value: T } | { ok: false; violations: FieldViolation[] };

/** `image`: the gateway's default image (drunc's BootRequest names none). */
export function bootPlan(request: BootRequest, image?: string): Planned<BootPlan> {
  const violations: FieldViolation[] = [];
  const refuse = (field: string, description: string) => violations.push({ field, description });
  const user = request.token?.user_name ?? '';
  const description = request.process_description;
  const metadata = description?.metadata;
  const restriction = request.process_restriction;
  if (!user) refuse('token.user_name', 'must name the user: a kpm session belongs to its booter');
  if (!description) refuse('process_description', 'is required');
  else if (!metadata) refuse('process_description.metadata', 'is required');
  else {
    if (!metadata.session) refuse('process_description.metadata.session', 'is required');
    if (!metadata.name) refuse('process_description.metadata.name', 'is required');
    if (metadata.user && user && metadata.user !== user) {
      refuse(
        'process_description.metadata.user',
        `is "${metadata.user}" but the token's user_name is "${user}": a kpm session belongs to the user who boots it`,
      );
    }
  }
  if (restriction?.allowed_host_types?.length) {
    refuse(
      'process_restriction.allowed_host_types',
      'is not supported by kpm: name nodes in allowed_hosts',
    );
  }
  if (violations.length > 0 || !description || !metadata) return { ok: false, violations };
  const spec: BootPlan['processes'][0] = {
    name: metadata.name,
    ...(image ? { image } : {}),
    executableAndArguments: description.executable_and_arguments.map((e) => ({
      exec: e.exec,
      args: [...e.args],
    })),
    ...(metadata.uuid?.uuid ? { uuid: metadata.uuid.uuid } : {}),
    ...(metadata.tree_id !== undefined ? { treeId: metadata.tree_id } : {}),
    ...(Object.keys(description.env).length > 0 ? { env: { ...description.env } } : {}),
    ...(description.process_execution_directory
      ? { executionDirectory: description.process_execution_directory }
      : {}),
    // drunc's process_logs_path is a file (its directory mounted, the output teed into it).
    ...(description.process_logs_path ? { logFile: description.process_logs_path } : {}),
    ...restrictionOf(request),
  };
  return { ok: true, value: { session: metadata.session!, user, processes: [spec] } };
}

/**
 * drunc's `localhost` is the process manager's own host (drunc's newer drivers resolve it before
 * sending; the enveloped driver's dummy_boot sends it as is). kpm has no host of its own: a
 * restriction to localhost alone is no restriction, and kpm places the process on a usable node.
 */
const OWN_HOST = new Set(['localhost', '127.0.0.1']);

function restrictionOf(request: BootRequest): Pick<BootPlan['processes'][0], 'restriction'> {
  const given = request.process_restriction?.allowed_hosts ?? [];
  const hosts = given.every((host) => OWN_HOST.has(host)) ? [] : given;
  const dataMount = request.process_restriction?.data_mount;
  if (hosts.length === 0 && dataMount === undefined) return {};
  return {
    restriction: {
      ...(hosts.length > 0 ? { allowedHosts: [...hosts] } : {}),
      ...(dataMount !== undefined ? { dataMount } : {}),
    },
  };
}
