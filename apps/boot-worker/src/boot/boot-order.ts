/**
 * drunc's boot order: its driver boots the infrastructure applications first, the local
 * connection server among them (the others connect to it) — waited for until Ready; then the
 * root controller, waited for until Ready; then the rest. kpm boots the rest concurrently. A
 * restart waits for the same two until Ready.
 */
import type { PlannedProcess } from './planned-process';
import { isConnectionServer as isDruncConnectionServer } from './process-network';

/** drunc's test: an infrastructure application whose name contains the connection server's. */
export function isConnectionServer(process: PlannedProcess, connectionServerName: string): boolean {
  return isDruncConnectionServer(process, connectionServerName);
}

export function waitsForReady(process: PlannedProcess, connectionServerName: string): boolean {
  return isConnectionServer(process, connectionServerName) || process.role === 'root-controller';
}

/** A group booted before everything after it. */
interface BootStage {
  what: string;
  selects: (process: PlannedProcess) => boolean;
  /**
   * The code of every later process when one of this stage fails; undefined: the stage's
   * processes are booted together and a failure stops nothing after them.
   */
  failureCode?: string;
}

/**
 * drunc's boot order: the local connection server, the other infrastructure applications, the
 * root controller, then the rest.
 */
export function bootStages(connectionServerName: string): BootStage[] {
  const server = (p: PlannedProcess) => isConnectionServer(p, connectionServerName);
  return [
    { what: 'local connection server', selects: server, failureCode: 'ConnectionServerFailed' },
    {
      what: 'infrastructure application',
      selects: (p) => p.role === 'infrastructure-applications' && !server(p),
    },
    {
      what: 'root controller',
      selects: (p) => p.role === 'root-controller',
      failureCode: 'RootControllerFailed',
    },
  ];
}

/** A stage of drunc's order with the processes of a boot it selects. */
export interface StagedProcesses {
  what: string;
  processes: PlannedProcess[];
  failureCode?: string;
}

/**
 * A boot's processes by drunc's stages (each process in the first stage that selects it), then
 * the rest, booted together (a failure among them stops nothing). Stages may be empty.
 */
export function inBootStages(
  processes: readonly PlannedProcess[],
  connectionServerName: string,
): StagedProcesses[] {
  let rest = [...processes];
  const staged: StagedProcesses[] = [];
  for (const { what, selects, failureCode } of bootStages(connectionServerName)) {
    staged.push({ what, failureCode, processes: rest.filter(selects) });
    rest = rest.filter((p) => !selects(p));
  }
  staged.push({ what: 'rest', processes: rest });
  return staged;
}
