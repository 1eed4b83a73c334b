import { Logger } from '@nestjs/common';
import {
  CompletionType,
  parseRecord,
  topicName,
  traceparentOf,
  type KpmEvent,
  type ParseResult,
} from '@kpm/contracts';
import { logEvent } from '@kpm/common';
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
/** What one record did to its shard: its effects, and the trace they carry (§3.4). */
export interface ShardStep {
  effects: Effect[];
  traceparent?: string;
  /** The command the record is or answers (a command's id, a fact's `commandId`). */
  commandId?: string;
}

export class ShardInput {
  private readonly logger = new Logger(ShardInput.name);

  constructor(
    private readonly settings: Pick<KpmSettings, 'kafka'>,
    private readonly groupId: string,
  ) {}

  /** The shard's effects and the trace they carry; dead letters and forwards go to `out`. */
  apply(shard: StateShard, record: InboundRecord, out: TransactionalRecord[]): ShardStep {
    const { maxRecordBytes: maxBytes, topicPrefix } = this.settings.kafka;
    if (this.forwardedElsewhere(record, out)) return { effects: [] };
    if (record.topic === topicName('dead-letters', topicPrefix)) {
      // Never dead-lettered again: a dead letter state cannot use is left to operators.
      const given = abandonedCommandOf(record, topicPrefix, maxBytes);
      if (!given) return { effects: [] };
      const { abandoned, session, time, traceparent } = given;
      const effects = shard.abandonedCommand(abandoned, session, time);
      return { effects, traceparent, commandId: abandoned.commandId };
    }
    const parsed = parseInput(record, maxBytes);
    if (parsed.ok) {
      const { event } = parsed;
      const effects = shard.apply(event, timeOf(event.time, record));
      return { effects, traceparent: traceparentOf(event), commandId: commandIdOf(event) };
    }
    if (record.topic === topicName('commands', topicPrefix)) {
      if (parsed.kind === 'not-a-cloudevent') return { effects: [] };
      const { id, type, subject } = parsed.envelope;
      return { effects: shard.invalidCommand(id, type, subject ?? record.key ?? '') };
    }
    out.push(this.deadLetter(record, parsed));
    return { effects: [] };
  }

  /** A fact state cannot read, to `kpm.dead-letters` in the same transaction. */
  private deadLetter(
    record: InboundRecord,
    parsed: Exclude<ParseResult, { ok: true }>,
  ): TransactionalRecord {
    const reason = parsed.kind === 'not-a-cloudevent' ? parsed.reason : 'invalid CloudEvent';
    const errors = parsed.kind === 'invalid' ? parsed.errors : [];
    this.logger.warn(
      logEvent('record.dead_lettered', {
        topic: record.topic,
        partition: record.partition,
        offset: record.offset,
        reason,
      }),
    );
    return {
      topic: topicName('dead-letters', this.settings.kafka.topicPrefix),
      ...deadLetterRecord(record, reason, errors, this.groupId),
    };
  }

  /** A misrouted command goes to `out`, for its session's partition; true if it was. */
  private forwardedElsewhere(record: InboundRecord, out: TransactionalRecord[]): boolean {
    const { topicPrefix, partitions } = this.settings.kafka;
    if (record.topic !== topicName('commands', topicPrefix)) return false;
    const route = commandRoute(record, partitions);
    if (route.routed) return false;
    this.logger.log(
      logEvent('command.forwarded', {
        topic: record.topic,
        partition: record.partition,
        offset: record.offset,
        reason: route.reason,
      }),
    );
    out.push(forwardedCommand(record, route));
    return true;
  }
}

/**
 * How state reads one of its inputs (a command, a fact, a termination), live and when a restore
 * replays it: the same record gets the same verdict on both paths, so a restore rebuilds the
 * state the live path had. The key must be the subject (the session decides the partition); `ce_`
 * headers make the record binary mode.
 */
export function parseInput(record: InboundRecord, maxBytes: number): ParseResult {
  return parseRecord(record.value, {
    topic: record.topic,
    maxBytes,
    key: record.key,
    headers: record.headers,
  });
}

/** A command's own id, or the command a fact names. */
function commandIdOf(event: KpmEvent): string | undefined {
  if (event.type.startsWith('daq.kpm.command.') && event.type !== CompletionType.commandCompleted) {
    return event.id;
  }
  const commandId = (event.data as { commandId?: unknown }).commandId;
  return typeof commandId === 'string' ? commandId : undefined;
}
