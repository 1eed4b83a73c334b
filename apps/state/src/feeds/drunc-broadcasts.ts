/**
 * drunc's broadcasts (docs/design.md §5.7): what a drunc shell or drunc_ui's message feed reads on
 * `control.<session>.<name>`, from the broadcasts the state service already decides. Pure: one of
 * kpm's broadcasts in, drunc's BroadcastMessage (type and text) out, or nothing when drunc's
 * process manager would say nothing.
 */
import { commandName } from '@kpm/contracts';
import type { BroadcastEffect } from '../domain/effects';

/** The BroadcastType names kpm's process manager feed sends (druncschema's numbering). */
export type DruncBroadcastType =
  | 'SERVER_READY'
  | 'ACK'
  | 'COMMAND_EXECUTION_SUCCESS'
  | 'DRUNC_EXCEPTION_RAISED'
  | 'SUBPROCESS_STATUS_UPDATE';

export interface DruncBroadcast {
  type: DruncBroadcastType;
  text: string;
}

/** Who ran a command, when kpm's broadcast or the caller knows it. */
export type UserOf = (commandId: string) => string | undefined;

/**
 * drunc's `@broadcasted` wording around every RPC: an ACK as the call comes in, then
 * COMMAND_EXECUTION_SUCCESS when it returns; a DruncCommandException is DRUNC_EXCEPTION_RAISED;
 * every end of a process is a SUBPROCESS_STATUS_UPDATE. COMMAND_EXECUTION_START has no drunc
 * counterpart; a failed or rejected command's exception broadcast follows its
 * COMMAND_EXECUTION_FAILED, so that one says nothing; a kill that timed out (no exception in
 * kpm's own feed) raises one here, since drunc's caller gets no success.
 */
export function druncBroadcast(
  effect: BroadcastEffect,
  userOf: UserOf,
): DruncBroadcast | undefined {
  const data = effect.data ?? {};
  const commandId = typeof data.commandId === 'string' ? data.commandId : '';
  const rpc = commandName(typeof data.commandType === 'string' ? data.commandType : '');
  const user =
    (typeof data.user === 'string' ? data.user : undefined) ?? userOf(commandId) ?? 'unknown';
  switch (effect.broadcastType) {
    case 'COMMAND_RECEIVED':
      return { type: 'ACK', text: `User '${user}' executing '${rpc}'` };
    case 'COMMAND_EXECUTION_SUCCESS':
      return {
        type: 'COMMAND_EXECUTION_SUCCESS',
        text: `User '${user}' successfully executed '${rpc}'`,
      };
    case 'COMMAND_EXECUTION_FAILED':
      return data.status === 'timed_out'
        ? { type: 'DRUNC_EXCEPTION_RAISED', text: effect.text }
        : undefined;
    case 'DRUNC_EXCEPTION_RAISED':
      return { type: 'DRUNC_EXCEPTION_RAISED', text: effect.text };
    case 'SUBPROCESS_STATUS_UPDATE':
      return { type: 'SUBPROCESS_STATUS_UPDATE', text: effect.text };
    default:
      return undefined;
  }
}

/** drunc's process manager's first word: it is ready. */
export const SERVER_READY: DruncBroadcast = { type: 'SERVER_READY', text: 'ready' };
