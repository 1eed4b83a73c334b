/**
 * What drunc's newer shells call besides druncschema 1.1.0's service — `send_msg` (a message to
 * log on the server) and `log_on_server` — answered as drunc's own process manager answers a
 * method it has no implementation of: UNIMPLEMENTED, "Implementation missing", ErrorInfo
 * {reason NOT_IMPLEMENTED, domain ProcessManager.<method>}. The requests are never decoded.
 */
import type {
  handleUnaryCall,
  MethodDefinition,
  Server,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { notImplemented } from './errors/gateway-error';
import { DRUNC_SERVICE_PATH } from './wire/proto-files';
import { serverError } from './wire/rich-status';

export const EXTRA_METHODS = ['send_msg', 'log_on_server'] as const;

const passThrough = (bytes: Buffer) => bytes;

export function addExtraMethods(server: Server): void {
  const definition: Record<string, MethodDefinition<Buffer, Buffer>> = {};
  const handlers: UntypedServiceImplementation = {};
  for (const method of EXTRA_METHODS) {
    definition[method] = {
      path: `/${DRUNC_SERVICE_PATH}/${method}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: passThrough,
      requestDeserialize: passThrough,
      responseSerialize: passThrough,
      responseDeserialize: passThrough,
    };
    const refuse: handleUnaryCall<Buffer, Buffer> = (_call, callback) =>
      callback(serverError(notImplemented(method).rich));
    handlers[method] = refuse;
  }
  server.addService(definition, handlers);
}
