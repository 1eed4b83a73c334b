/**
 * drunc's messages to the server on kpm's broadcast (docs/design.md §5.4): one TEXT_MESSAGE per
 * message, service-wide (subject the gateway's service name: none names a session), its text
 * `<rpc> from '<user>' (<severity>): <text>` bounded and sanitised, its `data` the fields
 * (`rpc`, `user`, `severity`, `text`). A message is a new event each time it is sent, so its id
 * is fresh. A broadcast that cannot be sent is logged (`drunc.announce_failed`) and the call is
 * still answered: the message is in the gateway's log whatever happens to Kafka.
 */
import { randomUUID } from 'node:crypto';
import { boundedText, eventId } from '@kpm/contracts';
import type { BroadcastInput } from '@kpm/service-kit';
import type { ServerAnnouncer, ServerLog, ServerMessage } from './server-messages';

/** Of a broadcast's text, as the state service bounds its own. */
export const MAX_ANNOUNCED_TEXT = 4096;

/** What kpm's broadcast says of one message. */
export function announcement(message: ServerMessage, id: string = randomUUID()): BroadcastInput {
  const severity = message.severity === undefined ? '' : ` (${message.severity})`;
  return {
    id: eventId('drunc-server-message', id),
    broadcastType: 'TEXT_MESSAGE',
    text: boundedText(
      `${message.rpc} from '${message.user}'${severity}: ${message.text}`,
      MAX_ANNOUNCED_TEXT,
    ),
    data: {
      rpc: message.rpc,
      user: boundedText(message.user, MAX_ANNOUNCED_TEXT),
      ...(message.severity === undefined
        ? {}
        : { severity: boundedText(message.severity, MAX_ANNOUNCED_TEXT) }),
      text: boundedText(message.text, MAX_ANNOUNCED_TEXT),
    },
  };
}

export class BroadcastAnnouncer implements ServerAnnouncer {
  constructor(
    private readonly broadcaster: { broadcast(input: BroadcastInput): Promise<void> },
    private readonly log: ServerLog,
  ) {}

  async announce(message: ServerMessage): Promise<void> {
    try {
      await this.broadcaster.broadcast(announcement(message));
    } catch (error) {
      this.log.write('warn', {
        event: 'drunc.announce_failed',
        rpc: message.rpc,
        user: message.user,
        error: (error as Error).message,
      });
    }
  }
}
