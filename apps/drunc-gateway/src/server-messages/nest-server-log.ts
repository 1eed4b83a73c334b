/**
 * The gateway's log as drunc's messages' destination: each entry one structured log record
 * whose message is the event's name and whose fields are the entry's (the service kit's logger
 * keeps an object's keys as fields).
 */
import { Logger } from '@nestjs/common';
import type { ServerLog, ServerLogEntry } from './server-messages';
import type { ServerLogLevel } from './severity';

export class NestServerLog implements ServerLog {
  private readonly logger = new Logger('drunc-gateway');

  write(level: ServerLogLevel, entry: ServerLogEntry): void {
    this.logger[level]({ message: entry.event, ...entry });
  }
}
