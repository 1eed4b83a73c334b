/**
 * The project's own .proto files of drunc's ProcessManager (druncschema 1.1.0, written by us from
 * the published names and numbers) and of gRPC's rich error model, and how they are loaded: by
 * Nest's gRPC transport through @grpc/proto-loader, and by protobufjs for the trailer details.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import * as protobuf from 'protobufjs';

/** proto-loader options: drunc's snake_case names as they are, enums as numbers, defaults filled. */
export const LOADER_OPTIONS = {
  keepCase: true,
  longs: String,
  enums: Number,
  defaults: true,
  arrays: true,
  objects: true,
  oneofs: true,
} as const;

export const DRUNC_PACKAGE = 'dunedaq.druncschema.process_manager';
export const DRUNC_SERVICE = 'ProcessManager';
export const DRUNC_SERVICE_PATH = `${DRUNC_PACKAGE}.${DRUNC_SERVICE}`;

/** Entry files, relative to {@link protoDir}. */
export const DRUNC_PROTO = 'druncschema/process_manager.proto';
export const RICH_ERROR_PROTOS = ['google/rpc/status.proto', 'google/rpc/error_details.proto'];

/** `apps/drunc-gateway/proto` from the sources, or the copy beside the compiled service. */
export function protoDir(): string {
  const candidates = [join(__dirname, '..', '..', 'proto'), join(__dirname, '..', 'proto')];
  const found = candidates.find((dir) => existsSync(join(dir, DRUNC_PROTO)));
  if (!found) throw new Error(`drunc-gateway: no ${DRUNC_PROTO} under ${candidates.join(' or ')}`);
  return found;
}

/** A protobufjs root of the given files, imports resolved under `dir` (google/protobuf built in). */
export function loadRoot(files: readonly string[], dir = protoDir()): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) =>
    target.startsWith('google/protobuf/') || isAbsolute(target) ? target : join(dir, target);
  root.loadSync(
    files.map((file) => join(dir, file)),
    { keepCase: true },
  );
  root.resolveAll();
  return root;
}
