/**
 * Errors as drunc's servers give them: a gRPC status whose `grpc-status-details-bin` trailer is a
 * google.rpc.Status {code, message, details: [Any(ErrorInfo), Any(BadRequest)…]}, read by drunc's
 * `extract_grpc_rich_error` (grpcio-status). drunc's ErrorInfo carries reason, domain
 * (`ProcessManager.<rpc>`) and metadata {message, …}; a refused field also gets a BadRequest
 * field violation, so the client is told which field and why.
 */
import { Metadata, type status as GrpcStatus, type ServerErrorResponse } from '@grpc/grpc-js';
import type * as protobuf from 'protobufjs';
import { loadRoot, RICH_ERROR_PROTOS } from './proto-files';

export interface FieldViolation {
  field: string;
  description: string;
}

export interface RichError {
  code: GrpcStatus;
  message: string;
  /** drunc's reasons: NOT_IMPLEMENTED, COMMAND_EXECUTION_FAILED, NOT_EXECUTED_BAD_REQUEST_FORMAT, … */
  reason: string;
  /** `ProcessManager.<rpc>`, as drunc's servers name it. */
  domain: string;
  /** Added to `{message}` in the ErrorInfo's metadata (command id, pending processes, …). */
  metadata?: Record<string, string>;
  violations?: FieldViolation[];
}

const TYPE_URL = 'type.googleapis.com/';
let types:
  { status: protobuf.Type; errorInfo: protobuf.Type; badRequest: protobuf.Type } | undefined;

function richTypes() {
  if (!types) {
    const root = loadRoot(RICH_ERROR_PROTOS);
    types = {
      status: root.lookupType('google.rpc.Status'),
      errorInfo: root.lookupType('google.rpc.ErrorInfo'),
      badRequest: root.lookupType('google.rpc.BadRequest'),
    };
  }
  return types;
}

function packed(type: protobuf.Type, value: object): { type_url: string; value: Uint8Array } {
  return {
    type_url: TYPE_URL + type.fullName.replace(/^\./, ''),
    value: type.encode(type.fromObject(value)).finish(),
  };
}

/** The google.rpc.Status bytes of `error`. */
export function statusDetailsBytes(error: RichError): Buffer {
  const { status, errorInfo, badRequest } = richTypes();
  const details = [
    packed(errorInfo, {
      reason: error.reason,
      domain: error.domain,
      metadata: { message: error.message, ...error.metadata },
    }),
  ];
  if (error.violations?.length) {
    details.push(packed(badRequest, { field_violations: error.violations }));
  }
  const bytes = status.encode(
    status.fromObject({ code: error.code, message: error.message, details }),
  );
  return Buffer.from(bytes.finish());
}

/** What a grpc-js handler passes to its callback (Nest's RpcException carries it as is). */
export function serverError(error: RichError): ServerErrorResponse {
  const metadata = new Metadata();
  metadata.set('grpc-status-details-bin', statusDetailsBytes(error));
  return Object.assign(new Error(error.message), {
    name: 'RichError',
    code: error.code,
    details: error.message,
    metadata,
  });
}

/** Decodes a google.rpc.Status (tests read the trailer as drunc's client does). */
export function decodeStatusDetails(bytes: Uint8Array): {
  code: number;
  message: string;
  errorInfo?: { reason: string; domain: string; metadata: Record<string, string> };
  violations: FieldViolation[];
} {
  const { status, errorInfo, badRequest } = richTypes();
  const decoded = status.toObject(status.decode(bytes), { defaults: true }) as {
    code: number;
    message: string;
    details: Array<{ type_url: string; value: Uint8Array }>;
  };
  const of = (type: protobuf.Type) =>
    decoded.details.find((d) => d.type_url === TYPE_URL + type.fullName.replace(/^\./, ''));
  const info = of(errorInfo);
  const bad = of(badRequest);
  return {
    code: decoded.code,
    message: decoded.message,
    errorInfo:
      info && (errorInfo.toObject(errorInfo.decode(info.value), { defaults: true }) as never),
    violations: bad
      ? (
          badRequest.toObject(badRequest.decode(bad.value), { defaults: true }) as {
            field_violations: FieldViolation[];
          }
        ).field_violations
      : [],
  };
}
