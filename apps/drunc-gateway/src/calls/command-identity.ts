/**
 * The command id of a drunc call: a UUID (v5) of the rpc, the caller, the request as kpm will
 * carry it, the retry window the call arrived in and the attempt within it. The same request
 * sent again (a retry after a gateway restart or a lost answer) names the same command; the
 * retry rule (retry-rule.ts) decides when an identical request is a new attempt instead.
 */
import { v5 as uuidv5 } from 'uuid';

/** kpm's drunc gateway's namespace for v5 ids (a fixed random UUID). */
export const GATEWAY_ID_NAMESPACE = '1f4c3a6e-2d0b-4c55-9a7e-5b8f0d3c6e21';

export interface CallIdentity {
  rpc: string;
  user: string;
  /** The request as kpm carries it (a ProcessSpec, a query, a session). */
  request: unknown;
}

export function commandIdOf(call: CallIdentity, window: number, attempt: number): string {
  return uuidv5(`${canonicalJson(call)}\n${window}\n${attempt}`, GATEWAY_ID_NAMESPACE);
}

/** A follow-up command of `commandId` (the flush after a kill): derived, so it is retry-safe too. */
export function followUpId(commandId: string, what: string): string {
  return uuidv5(`${commandId}\n${what}`, GATEWAY_ID_NAMESPACE);
}

/** JSON with object keys sorted, so equal requests give equal text whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : v,
  );
}
