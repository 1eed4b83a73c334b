/**
 * When a call must be answered: the caller's gRPC deadline less `gateway.deadlineMarginMs`, or
 * `gateway.defaultDeadlineSeconds` from now for a call without one. Both eras use it.
 */
import type { ServerUnaryCall } from '@grpc/grpc-js';
import type { GatewayConfig } from '@kpm/config';

export function answerBy(
  call: Pick<ServerUnaryCall<unknown, unknown>, 'getDeadline'>,
  gateway: Pick<GatewayConfig, 'deadlineMarginMs' | 'defaultDeadlineSeconds'>,
): number {
  const deadline = call.getDeadline();
  const ms = deadline instanceof Date ? deadline.getTime() : Number(deadline);
  return Number.isFinite(ms)
    ? ms - gateway.deadlineMarginMs
    : Date.now() + gateway.defaultDeadlineSeconds * 1000;
}
