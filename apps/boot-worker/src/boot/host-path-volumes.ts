/**
 * How kpm mounts a process's host directories so that no symlink can take them outside their
 * allowed prefix (docs/design.md §6.3 "Pod security"). kpm's check of a path is lexical; the
 * kubelet follows symlinks when it bind-mounts a hostPath. So the hostPath volume is the allowed
 * prefix itself and the rest of the path is the container mount's `subPath`: the kubelet opens a
 * subPath component by component and refuses one that leaves its volume (the container then
 * waits in CreateContainerConfigError, which ends the process).
 *
 * Missing directories are made by an init container running as the process's uid and gid, so
 * they belong to its owner (the kubelet would make a missing subPath as root): it walks each
 * path below its prefix one component at a time, making the missing ones of a
 * `DirectoryOrCreate` mount and failing, naming the path, when one of a `Directory` mount is
 * missing. It stops at a symlink and leaves it to the kubelet's check; inside its container a
 * symlink resolves against the container's own (read-only) filesystem, never the node's. Pure.
 */
import { posix } from 'node:path';
import type {
  V1Container,
  V1SecurityContext,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';

/** One host directory a process mounts, at the same path inside its container. */
export interface HostDirectory {
  /** What asks it, for messages: the spec's field (`logsPath`, …) or `home`. */
  field: string;
  /** The volume's name (a DNS label), also named by the kubelet's messages. */
  name: string;
  path: string;
  /** The allowed prefix the path must stay within (an ancestor of `path`, or `path` itself). */
  prefix: string;
  type: 'DirectoryOrCreate' | 'Directory';
}

export interface HostPathVolumes {
  volumes: V1Volume[];
  mounts: V1VolumeMount[];
  /** The arguments of the init container's script (`prepareScriptArgs`), none when nothing is to prepare. */
  prepare: string[];
  /** The init container's mounts of the prefixes, each at `/kpm/host/<name>`. */
  prepareMounts: V1VolumeMount[];
}

/** The init container's name: it prepares the process's host directories. */
export const HOST_PATHS_CONTAINER = 'kpm-host-paths';

/** Where the init container sees each prefix volume. */
const PREPARE_ROOT = '/kpm/host';

/** `path` without `.`/`..` segments or a trailing slash. */
export function normalHostPath(path: string): string {
  return posix.normalize(path).replace(/(.)\/+$/, '$1');
}

/** The longest of `prefixes` that `path` lies within, or undefined. */
export function allowedPrefixOf(path: string, prefixes: readonly string[]): string | undefined {
  const normal = normalHostPath(path);
  const within = prefixes
    .map(normalHostPath)
    .filter((p) => normal === p || normal.startsWith(p === '/' ? '/' : `${p}/`));
  return within.sort((a, b) => b.length - a.length)[0];
}

/**
 * The volumes and mounts of `directories`: each a hostPath of its prefix (`Directory`, or
 * `DirectoryOrCreate` for one kpm may create, whose prefix the kubelet makes if the node lacks
 * it) mounted at its path through `subPath`, plus what the init container prepares.
 */
export function hostPathVolumes(directories: readonly HostDirectory[]): HostPathVolumes {
  const plan: HostPathVolumes = { volumes: [], mounts: [], prepare: [], prepareMounts: [] };
  for (const dir of directories) {
    const path = normalHostPath(dir.path);
    const prefix = normalHostPath(dir.prefix);
    const subPath = path === prefix ? '' : posix.relative(prefix, path);
    if (subPath.startsWith('..') || posix.isAbsolute(subPath)) {
      throw new Error(`${dir.field}: ${path} is not within its prefix ${prefix}`);
    }
    plan.volumes.push({ name: dir.name, hostPath: { path: prefix, type: dir.type } });
    plan.mounts.push({
      name: dir.name,
      mountPath: path,
      ...(subPath !== '' ? { subPath } : {}),
    });
    if (subPath === '') continue;
    const create = dir.type === 'DirectoryOrCreate';
    const at = `${PREPARE_ROOT}/${dir.name}`;
    plan.prepare.push(at, path, dir.field, create ? 'create' : 'check', subPath);
    plan.prepareMounts.push({
      name: dir.name,
      mountPath: at,
      ...(create ? {} : { readOnly: true }),
    });
  }
  return plan;
}

/**
 * The init container's script (POSIX sh): for each group of five arguments (the prefix as
 * mounted, the host path, its field, `create` or `check`, the path below the prefix), enter the
 * prefix and walk the path a component at a time; stop at a symlink (the kubelet decides);
 * make a missing component when creating (as the container's user, so the owner is the
 * process's), else fail naming the path.
 */
export const PREPARE_SCRIPT = [
  'set -f',
  'fail() { echo "$*" >&2; exit 1; }',
  'while [ $# -ge 5 ]; do',
  '  ( at=$1 path=$2 field=$3 how=$4 below=$5',
  '    cd "$at" || fail "$field: cannot enter the allowed prefix of $path"',
  '    IFS=/',
  '    for part in $below; do',
  '      [ -L "./$part" ] && exit 0',
  '      if [ ! -e "./$part" ]; then',
  '        [ "$how" = create ] || fail "$field: $path does not exist on the node (no $part)"',
  '        mkdir "./$part" || fail "$field: cannot create $path as uid $(id -u) gid $(id -g)"',
  '      fi',
  '      cd "./$part" || fail "$field: $path: $part is not a directory uid $(id -u) may enter"',
  '    done ) || exit 1',
  '  shift 5',
  'done',
].join('\n');

/**
 * The init container that prepares the host directories, or undefined when none needs it. It
 * runs the process's image as the process's user (the pod's security context), never
 * privileged (`securityContext`: the unprivileged container policy) and with a read-only root,
 * with the process's resources (an init container's count as the pod's maximum, not its sum:
 * the pod's QoS class is unchanged).
 */
export function prepareContainer(
  plan: HostPathVolumes,
  main: Pick<V1Container, 'image' | 'imagePullPolicy' | 'resources'>,
  securityContext: V1SecurityContext,
): V1Container | undefined {
  if (plan.prepare.length === 0) return undefined;
  return {
    name: HOST_PATHS_CONTAINER,
    image: main.image,
    ...(main.imagePullPolicy ? { imagePullPolicy: main.imagePullPolicy } : {}),
    command: ['/bin/sh', '-c', PREPARE_SCRIPT, HOST_PATHS_CONTAINER, ...plan.prepare],
    ...(main.resources ? { resources: main.resources } : {}),
    volumeMounts: plan.prepareMounts,
    terminationMessagePolicy: 'FallbackToLogsOnError',
    securityContext: { ...securityContext, readOnlyRootFilesystem: true },
  };
}
