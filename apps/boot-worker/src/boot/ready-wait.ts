/**
 * Which processes a boot or a restart waits for until Ready, as drunc does: the local connection
 * server (the others connect to it, so a boot starts it first) and the root controller.
 */
import type { PlannedProcess } from './planned-process';

export function isConnectionServer(process: PlannedProcess, connectionServerName: string): boolean {
  return process.spec.name === connectionServerName;
}

export function waitsForReady(process: PlannedProcess, connectionServerName: string): boolean {
  return isConnectionServer(process, connectionServerName) || process.role === 'root-controller';
}
