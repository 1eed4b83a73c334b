/** How booting one process ended: its pod, or the code and message of `process.boot-failed`. */
import type { V1Pod } from '@kubernetes/client-node';

export interface BootFailure {
  ok: false;
  code: string;
  message: string;
}

/** A booted process: its pod; for the connection server, where the others reach it. */
export type BootOutcome = { ok: true; pod: V1Pod; connectionServer?: string } | BootFailure;

export function bootFailure(code: string, message: string): BootFailure {
  return { ok: false, code, message };
}
