/** How booting one process ended: its pod, or the code and message of `process.boot-failed`. */
import type { V1Pod } from '@kubernetes/client-node';

export interface BootFailure {
  ok: false;
  code: string;
  message: string;
}

export type BootOutcome = { ok: true; pod: V1Pod } | BootFailure;

export function bootFailure(code: string, message: string): BootFailure {
  return { ok: false, code, message };
}
