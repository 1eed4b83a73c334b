/**
 * drunc's boot order: the local connection server first (the others connect to it), then the root
 * controller, each waited for until Ready; then the rest, concurrently. A restart waits for the
 * same two until Ready.
 */
import type { PlannedProcess } from './planned-process';

export function isConnectionServer(process: PlannedProcess, connectionServerName: string): boolean {
  return process.spec.name === connectionServerName;
}

export function waitsForReady(process: PlannedProcess, connectionServerName: string): boolean {
  return isConnectionServer(process, connectionServerName) || process.role === 'root-controller';
}

/** A group booted, one at a time and each waited for, before everything after it. */
interface BootStage {
  what: string;
  selects: (process: PlannedProcess) => boolean;
  /** The code of every later process when one of this stage fails. */
  failureCode: string;
}

/** drunc's boot order: the local connection server, then the root controller, then the rest. */
export function bootStages(connectionServerName: string): BootStage[] {
  return [
    {
      what: 'local connection server',
      selects: (p) => isConnectionServer(p, connectionServerName),
      failureCode: 'ConnectionServerFailed',
    },
    {
      what: 'root controller',
      selects: (p) => p.role === 'root-controller' && !isConnectionServer(p, connectionServerName),
      failureCode: 'RootControllerFailed',
    },
  ];
}
