/**
 * The operator's `volumes` in a pod, as drunc mounts them: each a hostPath of type `Directory`
 * (it must exist on the node), read-only unless configured otherwise; `hugepages`, `vfio` and
 * `intel-firmware` only in readout applications' pods; one a readout pod already has (its
 * hugepages, by name or mount path) is left out. Then the home directory under `homePathBase`,
 * unless a configured mount covers it (drunc's `is_covered`). Pure.
 */
import type { V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { READOUT_ONLY_VOLUMES, type VolumeConfig } from '@kpm/config';

export interface PodMounts {
  volumes: V1Volume[];
  mounts: V1VolumeMount[];
}

/** What a pod already mounts, so a configured volume of the same name or path is left out. */
export interface Taken {
  names: readonly string[];
  paths: readonly string[];
}

export function configuredVolumes(
  volumes: readonly VolumeConfig[],
  readout: boolean,
  taken: Taken = { names: [], paths: [] },
): PodMounts {
  const kept = volumes.filter(
    (v) =>
      (readout || !READOUT_ONLY_VOLUMES.includes(v.name)) &&
      !taken.names.includes(v.name) &&
      !taken.paths.includes(v.mountPath),
  );
  return {
    volumes: kept.map((v) => ({ name: v.name, hostPath: { path: v.hostPath, type: 'Directory' } })),
    mounts: kept.map((v) => ({
      name: v.name,
      mountPath: v.mountPath,
      ...(v.readOnly === false ? {} : { readOnly: true }),
    })),
  };
}

/** Whether `path` is a configured mount path or lies below one (drunc's `is_covered`). */
export function coveredBy(path: string, mounts: readonly V1VolumeMount[]): boolean {
  return mounts.some((m) => path === m.mountPath || path.startsWith(`${m.mountPath}/`));
}
