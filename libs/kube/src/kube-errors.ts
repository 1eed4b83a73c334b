/** What kind of failure a Kubernetes API call had, so callers retry only what can succeed later. */
type KubeFailureKind =
  'not-found' | 'conflict' | 'gone' | 'invalid' | 'forbidden' | 'retryable' | 'other';

export interface KubeFailure {
  kind: KubeFailureKind;
  status?: number;
  reason: string;
  message: string;
}

const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
]);

/** A Kubernetes call that failed for good (withKubeRetry gave up or must not retry it). */
export class KubeCallFailed extends Error {
  constructor(
    readonly failure: KubeFailure,
    readonly attempts: number,
  ) {
    super(
      `${failure.reason}: ${failure.message}${attempts > 1 ? ` (after ${attempts} attempts)` : ''}`,
    );
    this.name = 'KubeCallFailed';
  }
}

/**
 * The classified failure of any error a Kubernetes call ended with: the classification a
 * KubeCallFailed carries, else that of the raw error (an ApiException, a network error). The one
 * way callers ask "what kind of failure was this".
 */
export function failureOf(error: unknown): KubeFailure {
  return error instanceof KubeCallFailed ? error.failure : classifyKubeError(error);
}

/** Classifies an error thrown by @kubernetes/client-node (ApiException carries `.code` and `.body`). */
export function classifyKubeError(error: unknown): KubeFailure {
  const status = statusOf(error);
  const { reason, message } = reasonAndMessage(error);
  if (status === undefined) {
    const code =
      (error as { code?: unknown; cause?: { code?: unknown } })?.cause?.code ??
      (error as { code?: unknown })?.code;
    const retryable = typeof code === 'string' && RETRYABLE_NETWORK_CODES.has(code);
    // A call aborted by its request timeout (retry stops anyway when the caller's signal aborted).
    if (isAbort(error)) return { kind: 'retryable', reason: 'Timeout', message };
    return {
      kind: retryable || isFetchFailure(error) ? 'retryable' : 'other',
      reason: typeof code === 'string' ? code : reason,
      message,
    };
  }
  if (isServiceAccountNotYetCreated(status, message))
    return { kind: 'retryable', status, reason, message };
  const kind: KubeFailureKind =
    status === 404
      ? 'not-found'
      : status === 409
        ? 'conflict'
        : status === 410
          ? 'gone'
          : status === 422 || status === 400
            ? 'invalid'
            : status === 401 || status === 403
              ? 'forbidden'
              : status === 429 || status >= 500
                ? 'retryable'
                : 'other';
  return { kind, status, reason, message };
}

/**
 * The ServiceAccount admission plugin refuses a pod while its namespace's `default` account is
 * not yet created (it waits about 2 s for the controller first): true of a namespace created a
 * moment ago, and passing once the controller has caught up.
 */
function isServiceAccountNotYetCreated(status: number, message: string): boolean {
  return status === 403 && /error looking up service account .*not found/.test(message);
}

function statusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'number' ? code : undefined;
}

function reasonAndMessage(error: unknown): { reason: string; message: string } {
  const body = (error as { body?: unknown })?.body;
  const status = parseBody(body);
  if (status)
    return { reason: status.reason ?? 'Unknown', message: status.message ?? String(body) };
  return {
    reason: error instanceof Error ? error.name : 'Unknown',
    message: errorText(error),
  };
}

function parseBody(body: unknown): { reason?: string; message?: string } | undefined {
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as { reason?: string; message?: string };
    } catch {
      return undefined;
    }
  }
  return typeof body === 'object' && body !== null ? body : undefined;
}

function isFetchFailure(error: unknown): boolean {
  return error instanceof TypeError && /fetch failed/i.test(error.message);
}

function isAbort(error: unknown): boolean {
  const name = (error as { name?: unknown })?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}
import { errorText } from '@kpm/common';
