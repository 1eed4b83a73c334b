/**
 * kpm's ProcessInstance as drunc's: the description exactly as booted (tree id included), the
 * host it runs on (the node, as drunc's K8s process manager reports the pod's host), the uuid,
 * RUNNING/DEAD and, once known, the exit code.
 */
import type { ProcessInstance as KpmInstance } from '@kpm/contracts';
import { StatusCode, type ProcessInstance } from '../wire/drunc-messages';

export function druncInstance(instance: KpmInstance): ProcessInstance {
  const { description, restriction } = instance;
  const { metadata } = description;
  const dead = instance.statusCode === 'DEAD';
  return {
    process_description: {
      metadata: {
        uuid: { uuid: instance.uuid },
        user: metadata.user,
        session: metadata.session,
        name: metadata.name,
        hostname: instance.nodeName ?? metadata.hostname ?? restriction?.allowedHosts?.[0] ?? '',
        ...(metadata.treeId !== undefined ? { tree_id: metadata.treeId } : {}),
      },
      env: { ...description.env },
      executable_and_arguments: description.executableAndArguments.map((e) => ({
        exec: e.exec,
        args: [...(e.args ?? [])],
      })),
      process_execution_directory: description.executionDirectory ?? '',
      process_logs_path: description.logFile ?? description.logsPath ?? '',
    },
    process_restriction: {
      allowed_hosts: [...(restriction?.allowedHosts ?? [])],
      allowed_host_types: [],
      ...(restriction?.dataMount !== undefined ? { data_mount: restriction.dataMount } : {}),
    },
    status_code: dead ? StatusCode.DEAD : StatusCode.RUNNING,
    ...(dead && instance.returnCode !== undefined ? { return_code: instance.returnCode } : {}),
    uuid: { uuid: instance.uuid },
  };
}
