import { Logger } from '@nestjs/common';
import { parseRecord, topicName } from '@kpm/contracts';
import type { KpmSettings } from '@kpm/config';
import {
  commandRoute,
  deadLetterRecord,
  forwardedCommand,
  type InboundRecord,
  type TransactionalRecord,
} from '@kpm/kafka';
import type { Effect } from '../domain/effects';
import type { StateShard } from '../domain/state-shard';
import { abandonedCommandOf } from './abandoned-command';
import { timeOf } from './fact-time';

/**
 * Feeds one consumed record to its shard. A record state cannot read is dead-lettered in the
 * same transaction, except commands: those are the boot-worker's to reject or dead-letter, state
 * only says it saw them. A command on another partition than its session's (a client with
 * another partitioner) is forwarded there unchanged, in the same transaction as the offset that
 * consumed it: exactly once (docs/design.md §9.6). A dead letter of a valid command the
 * boot-worker gave up on completes that command as failed.
 */
export class ShardInput {
  private readonly logger = new Logger(ShardInput.name);

  constructor(
    private readonly settings: KpmSettings,
    private readonly groupId: string,
  ) {}

  /** The shard's effects; dead letters go to `out`. */
  apply(shard: StateShard, record: InboundRecord, out: TransactionalRecord[]): Effect[] {
    const { maxRecordBytes: maxBytes, topicPrefix } = this.settings.kafka;
    if (this.forwardedElsewhere(record, out)) return [];
    if (record.topic === topicName('dead-letters', topicPrefix)) {
      // Never dead-lettered again: a dead letter state cannot use is left to operators.
      const given = abandonedCommandOf(record, topicPrefix, maxBytes);
      return given ? shard.abandonedCommand(given.abandoned, given.session, given.time) : [];
    }
    const parsed = parseRecord(record.value, {
      topic: record.topic,
      maxBytes,
      headers: record.headers,
    });
    if (parsed.ok) return shard.apply(parsed.event, timeOf(parsed.event.time, record));
    if (record.topic === topicName('commands', topicPrefix)) {
      if (parsed.kind === 'not-a-cloudevent') return [];
      const { id, type, subject } = parsed.envelope;
      return shard.invalidCommand(id, type, subject ?? record.key ?? '');
    }
    const reason = parsed.kind === 'not-a-cloudevent' ? parsed.reason : 'invalid CloudEvent';
    const errors = parsed.kind === 'invalid' ? parsed.errors : [];
    this.logger.warn(
      `dead-lettering ${record.topic}[${record.partition}]@${record.offset}: ${reason}`,
    );
    out.push({
      topic: topicName('dead-letters', topicPrefix),
      ...deadLetterRecord(record, reason, errors, this.groupId),
    });
    return [];
  }

  /** A misrouted command goes to `out`, for its session's partition; true if it was. */
  private forwardedElsewhere(record: InboundRecord, out: TransactionalRecord[]): boolean {
    const { topicPrefix, partitions } = this.settings.kafka;
    if (record.topic !== topicName('commands', topicPrefix)) return false;
    const route = commandRoute(record, partitions);
    if (route.routed) return false;
    this.logger.log(
      `forwarding ${record.topic}[${record.partition}]@${record.offset}: ${route.reason}`,
    );
    out.push(forwardedCommand(record, route));
    return true;
  }
}
