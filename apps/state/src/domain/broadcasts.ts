/**
 * The broadcasts and the completion record the state service writes, with drunc's texts and
 * ids derived from what caused them (a re-run after a crash writes the same ids).
 */
import {
  boundedText,
  broadcastText,
  commandName,
  eventId,
  type AutomaticAction,
  type CommandCompleted,
  type ProcessInstance,
  type ProcessTerminated,
} from '@kpm/contracts';
import { sizedCompletion, type CompletionInput } from './completion-record';
import type { BroadcastEffect, Effect } from './effects';

const SERVICE = 'state';
/** A broadcast's text quotes errors; it stays a line, not a record's worth of text. */
const MAX_BROADCAST_TEXT_LENGTH = 4096;

export function receivedBroadcast(
  commandId: string,
  commandType: string,
  session: string,
  user?: string,
): BroadcastEffect {
  return {
    kind: 'broadcast',
    id: eventId('command-received', SERVICE, commandId),
    broadcastType: 'COMMAND_RECEIVED',
    session,
    text: `${SERVICE} received ${commandType} ${commandId}`,
    data: { commandId, commandType, ...(user === undefined ? {} : { user }) },
  };
}

export function startBroadcast(
  commandId: string,
  commandType: string,
  session: string,
  detail: string,
): BroadcastEffect {
  return {
    kind: 'broadcast',
    id: eventId(SERVICE, 'COMMAND_EXECUTION_START', commandId),
    broadcastType: 'COMMAND_EXECUTION_START',
    session,
    text: `${commandName(commandType)} ${commandId} started: ${detail}`,
    data: { commandId, commandType },
  };
}

/** drunc's SUBPROCESS_STATUS_UPDATE for a termination, with drunc's exact text. */
export function terminationBroadcast(t: ProcessTerminated): BroadcastEffect {
  return {
    kind: 'broadcast',
    id: eventId(SERVICE, 'SUBPROCESS_STATUS_UPDATE', t.podUid),
    broadcastType: 'SUBPROCESS_STATUS_UPDATE',
    session: t.session,
    text: broadcastText.termination(t),
    data: {
      uuid: t.uuid,
      name: t.name,
      podUid: t.podUid,
      exitCode: t.exitCode,
      reason: t.reason,
    },
  };
}

/**
 * A decision under a process's exit policy (exit-actions.ts), as drunc's TEXT_MESSAGE: one per
 * step of it (decided, sent, cancelled), the action in `data.automatic`.
 */
export function automaticBroadcast(
  process: ProcessInstance,
  automatic: AutomaticAction,
): BroadcastEffect {
  const { session, name } = process.description.metadata;
  return {
    kind: 'broadcast',
    id: eventId(SERVICE, 'automatic', automatic.podUid, automatic.outcome),
    broadcastType: 'TEXT_MESSAGE',
    session,
    text: boundedText(
      `Process ${name} (${process.uuid}): ${automatic.message}`,
      MAX_BROADCAST_TEXT_LENGTH,
    ),
    data: { uuid: process.uuid, name, automatic },
  };
}

/** The completion and its COMMAND_EXECUTION_SUCCESS or _FAILED broadcast. */
export function completionEffects(input: CompletionInput): Effect[] {
  const completion = sizedCompletion(completionFields(input), input.processes, input.paging);
  const ok = input.status === 'succeeded';
  const broadcastType = ok ? 'COMMAND_EXECUTION_SUCCESS' : 'COMMAND_EXECUTION_FAILED';
  const verb = commandName(input.commandType);
  const summary = [
    `${input.processes.length} process${input.processes.length === 1 ? '' : 'es'}`,
    ...(input.pending && input.pending.length > 0 ? [`${input.pending.length} pending`] : []),
    ...(input.errors ?? [])
      .slice(0, 3)
      .map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)),
  ].join('; ');
  return [
    { kind: 'completion', completion },
    {
      kind: 'broadcast',
      id: eventId(SERVICE, broadcastType, input.commandId),
      broadcastType,
      session: input.session,
      text: boundedText(
        `${verb} ${input.commandId} ${input.status} in ${completion.durationMs} ms: ${summary}`,
        MAX_BROADCAST_TEXT_LENGTH,
      ),
      data: { commandId: input.commandId, commandType: input.commandType, status: input.status },
    },
    ...exceptionBroadcast(input, summary),
  ];
}

/**
 * drunc raises a DruncCommandException for a command it refuses or that fails, and its servicer
 * broadcasts DRUNC_EXCEPTION_RAISED; a kill that ran out of time is not an exception there.
 */
function exceptionBroadcast(input: CompletionInput, summary: string): BroadcastEffect[] {
  if (input.status !== 'failed' && input.status !== 'rejected') return [];
  const message = `${commandName(input.commandType)} ${input.commandId} ${input.status}: ${summary}`;
  return [
    {
      kind: 'broadcast',
      id: eventId(SERVICE, 'DRUNC_EXCEPTION_RAISED', input.commandId),
      broadcastType: 'DRUNC_EXCEPTION_RAISED',
      session: input.session,
      text: broadcastText.exception('DruncCommandException', message),
      data: { commandId: input.commandId, commandType: input.commandType, status: input.status },
    },
  ];
}

/** Every field of the completion but its processes. */
function completionFields(input: CompletionInput): Omit<CommandCompleted, 'processes'> {
  const since = input.acceptedAt ?? input.completedAt;
  return {
    commandId: input.commandId,
    commandType: input.commandType,
    session: input.session,
    status: input.status,
    ...(input.pending ? { pending: input.pending } : {}),
    ...(input.errors && input.errors.length > 0 ? { errors: input.errors } : {}),
    ...(input.logs ? { logs: input.logs } : {}),
    ...(input.acceptedAt !== undefined
      ? { acceptedAt: new Date(input.acceptedAt).toISOString() }
      : {}),
    completedAt: new Date(input.completedAt).toISOString(),
    durationMs: Math.max(0, input.completedAt - since),
    ...(input.automatic ? { automatic: input.automatic } : {}),
  };
}
