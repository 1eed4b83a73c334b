/**
 * What drunc's newer clients tell a server rather than ask of kpm: `log_on_server` (the shells
 * at connect), `echo_on_server` and `send_msg` (run control's end_session). None is a kpm
 * command: each is written to the gateway's own log as a structured event — its name, the
 * token's user and the caller's text as fields —, announced on kpm's broadcast as a
 * TEXT_MESSAGE (docs/design.md §5.4), and answered as drunc's run control server answers it.
 *
 * - log_on_server, echo_on_server: the text at the request's severity; answered
 *   LogOnServerResponse{token: the request's, name: the gateway's (describe's), flag
 *   EXECUTED_SUCCESSFULLY, no children}. A severity that names no level is not logged and is
 *   answered NOT_EXECUTED_NOT_IMPLEMENTED, as drunc's run control server answers it, and not
 *   announced. An empty text is logged: drunc's run control server logs what it is sent.
 * - send_msg: the GenericNotificationMessage in Request.data, at info; answered with an empty
 *   OutcomeStatus. An Any of another type, or one that does not decode, is refused
 *   (INVALID_ARGUMENT, field `data`).
 */
import { badRequest } from '../errors/gateway-error';
import {
  ResponseFlag,
  type LogOnServerRequest,
  type LogOnServerResponse,
  type OutcomeStatus,
  type Request,
  type Token,
} from '../wire/drunc-messages';
import { NotificationReader } from './notification';
import { KNOWN_SEVERITIES, levelOf, type ServerLogLevel } from './severity';

/** A structured log entry: `event` names it, the rest are its fields. */
export interface ServerLogEntry {
  event: string;
  [field: string]: string;
}

/** Where the events go (the gateway's logger; tests record them). */
export interface ServerLog {
  write(level: ServerLogLevel, entry: ServerLogEntry): void;
}

/** One message a drunc client told the server, as kpm's broadcast carries it. */
export interface ServerMessage {
  rpc: 'log_on_server' | 'echo_on_server' | 'send_msg';
  user: string;
  /** The caller's severity, as sent (log_on_server and echo_on_server). */
  severity?: string;
  text: string;
}

/**
 * Who hears of each message beyond the log: kpm's broadcast (server-announcer.ts). An
 * announcer never fails the call — the message is logged whatever becomes of its broadcast.
 */
export interface ServerAnnouncer {
  announce(message: ServerMessage): Promise<void>;
}

export class DruncServerMessages {
  private readonly notifications = new NotificationReader();

  constructor(
    /** What describe names: the gateway's name, which drunc's servers answer as `name`. */
    private readonly name: string,
    private readonly log: ServerLog,
    private readonly announcer: ServerAnnouncer,
  ) {}

  logOnServer(request: LogOnServerRequest): Promise<LogOnServerResponse> {
    return this.logged('log_on_server', request);
  }

  echoOnServer(request: LogOnServerRequest): Promise<LogOnServerResponse> {
    return this.logged('echo_on_server', request);
  }

  async sendMsg(request: Request): Promise<OutcomeStatus> {
    const notification = this.notifications.read(request.data);
    if (!notification.ok) {
      throw badRequest('send_msg', [{ field: 'data', description: notification.reason }]);
    }
    const user = userOf(request.token);
    this.log.write('log', { event: 'drunc.send_msg', user, text: notification.message });
    await this.announcer.announce({ rpc: 'send_msg', user, text: notification.message });
    return {};
  }

  private async logged(
    rpc: 'log_on_server' | 'echo_on_server',
    request: LogOnServerRequest,
  ): Promise<LogOnServerResponse> {
    const event = `drunc.${rpc}`;
    const level = levelOf(request.severity);
    const user = userOf(request.token);
    const answer = (flag: ResponseFlag): LogOnServerResponse => ({
      token: request.token ?? null,
      name: this.name,
      flag,
      children: [],
    });
    if (!level) {
      this.log.write('warn', {
        event: `${event}.not_logged`,
        user,
        severity: request.severity,
        reason: `severity names no level (${KNOWN_SEVERITIES.join(', ')}, any case)`,
      });
      return answer(ResponseFlag.NOT_EXECUTED_NOT_IMPLEMENTED);
    }
    this.log.write(level, { event, user, severity: request.severity, text: request.text });
    await this.announcer.announce({ rpc, user, severity: request.severity, text: request.text });
    return answer(ResponseFlag.EXECUTED_SUCCESSFULLY);
  }
}

function userOf(token: Token | null | undefined): string {
  return token?.user_name ?? '';
}
