import {
  DRUNC_CONTROLLER_EXECUTABLES,
  processUuid,
  roleOf,
  type ExitPolicy,
  type ProcessSpec,
  type Role,
} from '@kpm/contracts';

/** A process of a boot with the uuid the boot-worker settled on and its drunc role. */
export interface PlannedProcess {
  index: number;
  uuid: string;
  /** The spec as given, with `uuid` filled in: what the pod's spec annotation stores. */
  spec: ProcessSpec & { uuid: string };
  role: Role;
}

/**
 * Uuids absent from the command derive from (command id, index): a redelivered boot is a no-op.
 * Roles are drunc's: the tree id and whether the process runs one of `controllerExecutables`.
 * A process without an exit policy takes the boot's (`sessionExitPolicy`), stored with its spec.
 */
export function planProcesses(
  commandId: string,
  processes: readonly ProcessSpec[],
  controllerExecutables: readonly string[] = DRUNC_CONTROLLER_EXECUTABLES,
  sessionExitPolicy?: ExitPolicy,
): PlannedProcess[] {
  return processes.map((spec, index) => {
    const uuid = spec.uuid ?? processUuid(commandId, index);
    const exitPolicy = spec.exitPolicy ?? sessionExitPolicy;
    const planned = { ...spec, uuid, ...(exitPolicy ? { exitPolicy } : {}) };
    return { index, uuid, spec: planned, role: roleOf(spec, controllerExecutables) };
  });
}
