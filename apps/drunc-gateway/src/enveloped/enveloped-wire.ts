/**
 * drunc's enveloped era on the wire (druncschema before 1.0: package `dunedaq.druncschema`,
 * every call a `Request{token, data: Any}`, every answer a `Response{name, token, data: Any, flag,
 * children}`), from the project's own files under `proto/enveloped`. The era's messages share
 * full names with 1.1.0's (`dunedaq.druncschema.Description` has other numbers there), so they
 * load apart: their own proto-loader definition for the services, their own protobufjs root for
 * the payloads packed in an Any.
 */
import { join } from 'node:path';
import type { ServiceDefinition } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type * as protobuf from 'protobufjs';
import type { AnyMessage, ResponseFlag, Token } from '../wire/drunc-messages';
import { LOADER_OPTIONS, loadRoot, protoDir } from '../wire/proto-files';

export const ENVELOPED_PACKAGE = 'dunedaq.druncschema';
export const ENVELOPED_PROTOS = [
  'druncschema/process_manager.proto',
  'druncschema/session_manager.proto',
  'druncschema/generic.proto',
] as const;

/** The payloads this era packs into `Request.data` and `Response.data`. */
export type EnvelopedType =
  | 'BootRequest'
  | 'ProcessQuery'
  | 'LogRequest'
  | 'LogLine'
  | 'ProcessInstance'
  | 'ProcessInstanceList'
  | 'Description'
  | 'PlainText'
  | 'Stacktrace'
  | 'AllActiveSessions'
  | 'AllConfigKeys';

export interface EnvelopedRequest {
  token?: Token | null;
  data?: AnyMessage | null;
}

export interface EnvelopedResponse {
  name: string;
  token?: Token | null;
  data?: AnyMessage | null;
  flag: ResponseFlag;
  children: EnvelopedResponse[];
}

export const TYPE_URL_PREFIX = 'type.googleapis.com/';

/** Decoded as proto-loader decodes a request (snake_case, enums as numbers, defaults filled). */
const TO_OBJECT: protobuf.IConversionOptions = {
  longs: String,
  enums: Number,
  defaults: true,
  arrays: true,
  objects: true,
  oneofs: true,
};

export function envelopedProtoDir(): string {
  return join(protoDir(), 'enveloped');
}

export type Unpacked<T> = { ok: true; value: T } | { ok: false; reason: string };

export class EnvelopedWire {
  private readonly root = loadRoot(ENVELOPED_PROTOS, envelopedProtoDir());

  /** grpc-js service definitions of the era's ProcessManager and SessionManager. */
  services(): { processManager: ServiceDefinition; sessionManager: ServiceDefinition } {
    const definition = protoLoader.loadSync([...ENVELOPED_PROTOS], {
      ...LOADER_OPTIONS,
      includeDirs: [envelopedProtoDir()],
    });
    const service = (name: string) =>
      definition[`${ENVELOPED_PACKAGE}.${name}`] as unknown as ServiceDefinition;
    return { processManager: service('ProcessManager'), sessionManager: service('SessionManager') };
  }

  /** `value` as an Any of `type`, the type URL drunc's `Any.Pack` writes. */
  pack(type: EnvelopedType, value: object): AnyMessage {
    const message = this.type(type);
    return {
      type_url: TYPE_URL_PREFIX + fullName(message),
      value: Buffer.from(message.encode(message.fromObject(value)).finish()),
    };
  }

  /**
   * An Any's payload as `type`, or why not: drunc's `unpack_any` accepts an Any whose type URL
   * names the type (`Any.Is`), whatever its prefix; kpm also refuses bytes that do not decode.
   */
  unpack<T>(data: AnyMessage | null | undefined, type: EnvelopedType): Unpacked<T> {
    const message = this.type(type);
    const expected = `data: expected an Any of type ${TYPE_URL_PREFIX}${fullName(message)}`;
    const named = data?.type_url ? data.type_url.slice(data.type_url.lastIndexOf('/') + 1) : '';
    if (!data || named !== fullName(message)) {
      const got = data?.type_url ? `an Any of type "${data.type_url}"` : 'no data';
      return { ok: false, reason: `${expected}, got ${got}` };
    }
    try {
      return { ok: true, value: message.toObject(message.decode(data.value), TO_OBJECT) as T };
    } catch (error) {
      const why = (error as Error).message;
      return {
        ok: false,
        reason: `${expected}, got ${data.value.length} bytes that do not decode as one (${why})`,
      };
    }
  }

  /** Decodes a packed payload (tests read answers as drunc's clients do). */
  decode<T>(data: AnyMessage, type: EnvelopedType): T {
    const unpacked = this.unpack<T>(data, type);
    if (!unpacked.ok) throw new Error(unpacked.reason);
    return unpacked.value;
  }

  private type(name: EnvelopedType): protobuf.Type {
    return this.root.lookupType(`${ENVELOPED_PACKAGE}.${name}`);
  }
}

function fullName(type: protobuf.Type): string {
  return type.fullName.replace(/^\./, '');
}
