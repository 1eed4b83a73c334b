/**
 * The gateway's log as drunc's messages' destination: each entry one log event (`logEvent`),
 * its name the entry's `event`, its fields the entry's other keys.
 */
import { Logger } from '@nestjs/common';
import { logEvent } from '@kpm/common';
import type { ServerLog, ServerLogEntry } from './server-messages';
import type { ServerLogLevel } from './severity';

export class NestServerLog implements ServerLog {
  private readonly logger = new Logger('drunc-gateway');

  write(level: ServerLogLevel, entry: ServerLogEntry): void {
    const { event, ...fields } = entry;
    this.logger[level](logEvent(event, fields));
  }
}
