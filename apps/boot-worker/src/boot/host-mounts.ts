/**
 * The host directories a process mounts from its spec (docs/design.md §6.3), as drunc mounts them:
 * `logsPath` (kpm's log directory, as is), `logFile` (drunc's `process_logs_path`, a file: its
 * directory), `restriction.dataMount` (`.` is the execution directory, as drunc's `data_mount`).
 * Pure: the policy checks these paths against the host path prefixes, the pod builder mounts them.
 */
import { posix } from 'node:path';
import { EXECUTION_DIRECTORY_MOUNTS, type ProcessSpec } from '@kpm/contracts';
import { shellWord } from './shell-command';

/** One host directory of the process, mounted at the same path. */
export interface SpecMount {
  /** The spec's field it comes from, for errors. */
  field: 'logsPath' | 'logFile' | 'restriction.dataMount';
  name: string;
  path: string;
  /** `DirectoryOrCreate` for log directories (drunc creates them), `Directory` for data. */
  type: 'DirectoryOrCreate' | 'Directory';
}

/** The directory holding drunc's log file: what is mounted (drunc's `dirname(process_logs_path)`). */
export function logFileDirectory(logFile: string): string {
  return posix.dirname(posix.normalize(logFile));
}

/**
 * The data directory: drunc's `"."` (or `"./"`) is the execution directory; undefined when the
 * spec has none to resolve it against (the validator refuses that).
 */
export function dataMountPath(spec: Pick<ProcessSpec, 'restriction' | 'executionDirectory'>) {
  const mount = spec.restriction?.dataMount;
  if (mount === undefined || !EXECUTION_DIRECTORY_MOUNTS.includes(mount)) return mount;
  return spec.executionDirectory;
}

/** The spec's host directories, in drunc's order (logs, then data), one per path. */
export function specMounts(spec: ProcessSpec): SpecMount[] {
  const wanted: SpecMount[] = [];
  if (spec.logsPath) {
    wanted.push({
      field: 'logsPath',
      name: 'kpm-logs',
      path: spec.logsPath,
      type: 'DirectoryOrCreate',
    });
  }
  if (spec.logFile) {
    const path = logFileDirectory(spec.logFile);
    wanted.push({ field: 'logFile', name: 'kpm-log-file', path, type: 'DirectoryOrCreate' });
  }
  const data = dataMountPath(spec);
  if (data !== undefined) {
    wanted.push({
      field: 'restriction.dataMount',
      name: 'kpm-data',
      path: data,
      type: 'Directory',
    });
  }
  const seen = new Set<string>();
  return wanted.filter((w) => !seen.has(w.path) && seen.add(w.path));
}

/**
 * drunc's redirection at the head of the process's script: stdout and stderr appended to the
 * log file through `tee`, which also writes them on to the pod's log. Empty without a log file.
 */
export function logFileRedirection(logFile: string | undefined): string {
  return logFile ? `exec > >(tee -a ${shellWord(logFile)}) 2>&1; ` : '';
}
