/**
 * How the gateway refuses or fails a call: drunc's rich status (wire/rich-status.ts). One place
 * names the codes and reasons: a refused field is INVALID_ARGUMENT (reason
 * NOT_EXECUTED_BAD_REQUEST_FORMAT) with the field, a session of another user PERMISSION_DENIED
 * (NOT_EXECUTED_NOT_AUTHORISED), a failed command INTERNAL (COMMAND_EXECUTION_FAILED, as drunc's
 * DruncCommandException), kpm unreachable UNAVAILABLE, an answer not ready by the caller's
 * deadline DEADLINE_EXCEEDED with how far the command got.
 */
import { status } from '@grpc/grpc-js';
import type { CommandCompleted } from '@kpm/contracts';
import type { FieldViolation, RichError } from '../wire/rich-status';

export class GatewayError extends Error {
  constructor(readonly rich: RichError) {
    super(rich.message);
    this.name = 'GatewayError';
  }
}

export const domainOf = (rpc: string) => `ProcessManager.${rpc}`;

export function badRequest(rpc: string, violations: FieldViolation[]): GatewayError {
  const fields = violations.map((v) => `${v.field}: ${v.description}`).join('; ');
  return new GatewayError({
    code: status.INVALID_ARGUMENT,
    message: `${rpc} refused: ${fields}`,
    reason: 'NOT_EXECUTED_BAD_REQUEST_FORMAT',
    domain: domainOf(rpc),
    metadata: { field: violations.map((v) => v.field).join(', ') },
    violations,
  });
}

/** A completion that is not `succeeded` (and not a kill's partial answer) as drunc's error. */
export function completionError(
  rpc: string,
  completion: CommandCompleted,
  fieldOf: (path?: string) => string,
): GatewayError {
  const errors = completion.errors ?? [];
  // drunc's shells show only this message: each error names the drunc field it came from,
  // says why, and how to fix it where kpm knows more than its rule says.
  const summary = errors
    .map((e) => {
      const field = fieldOf(e.path) || e.path;
      const text = field ? `${field}: ${e.message}` : e.message;
      return `${text}${fixOf(field)}`;
    })
    .join('; ');
  const metadata = { commandId: completion.commandId, status: completion.status };
  if (completion.status === 'rejected') {
    const violations = errors.map((e) => ({ field: fieldOf(e.path), description: e.message }));
    const foreign = errors.some((e) => /belongs to user/.test(e.message));
    return new GatewayError({
      code: foreign ? status.PERMISSION_DENIED : status.INVALID_ARGUMENT,
      message: `${rpc} refused by kpm: ${summary}`,
      reason: foreign ? 'NOT_EXECUTED_NOT_AUTHORISED' : 'NOT_EXECUTED_BAD_REQUEST_FORMAT',
      domain: domainOf(rpc),
      metadata: { ...metadata, field: violations.map((v) => v.field).join(', ') },
      violations,
    });
  }
  if (completion.status === 'timed_out') {
    return new GatewayError({
      code: status.DEADLINE_EXCEEDED,
      message: `${rpc} timed out in kpm: ${summary}`,
      reason: 'COMMAND_TIMED_OUT',
      domain: domainOf(rpc),
      metadata: { ...metadata, pending: (completion.pending ?? []).join(',') },
    });
  }
  return new GatewayError({
    code: status.INTERNAL,
    message: `${rpc} failed in kpm: ${summary}`,
    reason: 'COMMAND_EXECUTION_FAILED',
    domain: domainOf(rpc),
    metadata,
  });
}

/** What to do, for a refusal whose remedy is on drunc's side rather than in kpm's rule. */
function fixOf(field: string | undefined): string {
  if (field === 'process_description.process_logs_path') {
    return " (drunc writes each process's log in the directory its shell was started in: start the shell under an allowed prefix, or ask the operator to add one)";
  }
  return '';
}

export function unavailable(rpc: string, cause: Error): GatewayError {
  return new GatewayError({
    code: status.UNAVAILABLE,
    message: `${rpc}: kpm could not be reached: ${cause.message}`,
    reason: 'KPM_UNREACHABLE',
    domain: domainOf(rpc),
  });
}

/** The caller's deadline comes before the completion: say how far the command got. */
export function stillRunning(
  rpc: string,
  commandId: string,
  waitedMs: number,
  progress: string,
): GatewayError {
  return new GatewayError({
    code: status.DEADLINE_EXCEEDED,
    message: `${rpc}: no completion of kpm command ${commandId} after ${(waitedMs / 1000).toFixed(1)} s (${progress}); it goes on, and the same request sent again is answered from it`,
    reason: 'COMMAND_STILL_RUNNING',
    domain: domainOf(rpc),
    metadata: { commandId, progress },
  });
}
