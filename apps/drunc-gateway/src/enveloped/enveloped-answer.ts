/**
 * How the enveloped era answers: never a gRPC error (drunc's enveloped driver has no answer to
 * read after one, and stops), always a Response. A success carries exactly the payload type the
 * client unpacks; a refusal or failure carries the era's flag and the whole explanation in its
 * data, as drunc's own process manager of that era does:
 *
 * | why                                            | flag                            | data       |
 * | ---------------------------------------------- | ------------------------------- | ---------- |
 * | data that is not the RPC's payload (garbage)   | NOT_EXECUTED_BAD_REQUEST_FORMAT | PlainText  |
 * | a field or query kpm refuses (INVALID_ARGUMENT) | NOT_EXECUTED_BAD_REQUEST_FORMAT | PlainText  |
 * | another user's session (PERMISSION_DENIED)      | NOT_EXECUTED_NOT_AUTHORISED     | PlainText  |
 * | an RPC kpm does not serve (UNIMPLEMENTED)       | NOT_EXECUTED_NOT_IMPLEMENTED    | PlainText  |
 * | a failed, timed-out or unreachable kpm command  | DRUNC_EXCEPTION_THROWN          | Stacktrace |
 * | anything else                                   | UNHANDLED_EXCEPTION_THROWN      | Stacktrace |
 */
import { status } from '@grpc/grpc-js';
import { GatewayError } from '../errors/gateway-error';
import { ResponseFlag, type Token } from '../wire/drunc-messages';
import type { EnvelopedResponse, EnvelopedType, EnvelopedWire } from './enveloped-wire';

const FLAG_OF_CODE: Partial<Record<status, ResponseFlag>> = {
  [status.INVALID_ARGUMENT]: ResponseFlag.NOT_EXECUTED_BAD_REQUEST_FORMAT,
  [status.PERMISSION_DENIED]: ResponseFlag.NOT_EXECUTED_NOT_AUTHORISED,
  [status.UNIMPLEMENTED]: ResponseFlag.NOT_EXECUTED_NOT_IMPLEMENTED,
};

export class EnvelopedAnswers {
  constructor(
    private readonly wire: EnvelopedWire,
    private readonly name: string,
  ) {}

  success(type: EnvelopedType, payload: object, flag = ResponseFlag.EXECUTED_SUCCESSFULLY) {
    return this.response(flag, this.wire.pack(type, payload));
  }

  /** A request whose data is not the RPC's payload, as drunc's `unpack_request_data_to`. */
  badData(token: Token | null | undefined, reason: string): EnvelopedResponse {
    return this.refusal(ResponseFlag.NOT_EXECUTED_BAD_REQUEST_FORMAT, token, reason);
  }

  notImplemented(rpc: string, token: Token | null | undefined): EnvelopedResponse {
    return this.refusal(
      ResponseFlag.NOT_EXECUTED_NOT_IMPLEMENTED,
      token,
      `${rpc} is not implemented by kpm`,
    );
  }

  /** A thrown refusal or failure as the era's flag and text. */
  error(rpc: string, token: Token | null | undefined, error: unknown): EnvelopedResponse {
    if (error instanceof GatewayError) {
      const flag = FLAG_OF_CODE[error.rich.code];
      if (flag !== undefined) return this.refusal(flag, token, error.message);
      return this.trace(ResponseFlag.DRUNC_EXCEPTION_THROWN, token, error.message);
    }
    const message = `Unhandled exception in ProcessManager.${rpc}: ${(error as Error).message}`;
    return this.trace(ResponseFlag.UNHANDLED_EXCEPTION_THROWN, token, message);
  }

  private refusal(flag: ResponseFlag, token: Token | null | undefined, text: string) {
    return { ...this.response(flag, this.wire.pack('PlainText', { text })), token: token ?? null };
  }

  /** drunc's clients show a Stacktrace's last non-empty line: the message is that line. */
  private trace(flag: ResponseFlag, token: Token | null | undefined, message: string) {
    const data = this.wire.pack('Stacktrace', { text: message.split('\n') });
    return { ...this.response(flag, data), token: token ?? null };
  }

  private response(flag: ResponseFlag, data: EnvelopedResponse['data']): EnvelopedResponse {
    return { name: this.name, token: null, data, flag, children: [] };
  }
}
