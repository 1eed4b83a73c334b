/**
 * The protobuf messages of DUNE's feeds, loaded from kpm's own `.proto` files
 * (`apps/state/proto`: druncschema's broadcast, drunc's opmon ProcessStatus, opmonlib's
 * OpMonEntry, ERS's IssueChain). feed-protos.spec.ts holds them to the upstream numbers.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as protobuf from 'protobufjs';

export const FEED_PROTO_FILES = [
  'druncschema/broadcast.proto',
  'druncschema/generic.proto',
  'druncschema/opmon/process_manager.proto',
  'opmonlib/opmon_entry.proto',
  'ers/issue.proto',
] as const;

/** The full names the feeds write. */
export const FeedMessage = {
  broadcast: 'dunedaq.druncschema.BroadcastMessage',
  plainText: 'dunedaq.druncschema.PlainText',
  kafkaBroadcastConfiguration: 'dunedaq.druncschema.KafkaBroadcastHandlerConfiguration',
  processStatus: 'dunedaq.drunc.opmon.ProcessStatus',
  opmonEntry: 'dunedaq.opmon.OpMonEntry',
  issueChain: 'dunedaq.ersschema.IssueChain',
} as const;

/** `apps/state/proto` from the sources, or the copy beside the compiled service. */
export function feedProtoDir(): string {
  const candidates = [join(__dirname, '..', '..', 'proto'), join(__dirname, '..', 'proto')];
  const found = candidates.find((dir) => existsSync(join(dir, FEED_PROTO_FILES[0])));
  if (!found) throw new Error(`state: no ${FEED_PROTO_FILES[0]} under ${candidates.join(' or ')}`);
  return found;
}

let loaded: protobuf.Root | undefined;

/** The feeds' messages, loaded once (google/protobuf's any and timestamp are protobufjs' own). */
export function feedRoot(): protobuf.Root {
  if (loaded) return loaded;
  const dir = feedProtoDir();
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) =>
    target.startsWith('google/protobuf/') || target.startsWith(dir) ? target : join(dir, target);
  root.loadSync(
    [...FEED_PROTO_FILES],
    { keepCase: true }, // upstream's field names, as Python's classes have them
  );
  root.resolveAll();
  loaded = root;
  return root;
}

/** drunc's number of a BroadcastType name. */
export function broadcastTypeNumber(name: string): number {
  const value = feedRoot().lookupEnum('dunedaq.druncschema.BroadcastType').values[name];
  if (value === undefined) throw new Error(`drunc has no BroadcastType ${name}`);
  return value;
}

/** One message of the feeds, by its full name (enums as numbers), as bytes. */
export function encodeFeedMessage(fullName: string, value: Record<string, unknown>): Buffer {
  const type = feedRoot().lookupType(fullName);
  const error = type.verify(value);
  if (error) throw new Error(`${fullName}: ${error}`);
  return Buffer.from(type.encode(type.fromObject(value)).finish());
}

/** Bytes back to a plain object (enums as names, longs as numbers): for tests and tools. */
export function decodeFeedMessage(fullName: string, bytes: Uint8Array): Record<string, unknown> {
  const type = feedRoot().lookupType(fullName);
  return type.toObject(type.decode(bytes), { enums: String, longs: Number, defaults: true });
}

/** `google.protobuf.Any` of one of the feeds' messages. */
export function packAny(fullName: string, value: Record<string, unknown>) {
  return { type_url: `type.googleapis.com/${fullName}`, value: encodeFeedMessage(fullName, value) };
}
