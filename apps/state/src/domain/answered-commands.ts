/**
 * Commands the boot-worker answers with one fact: the logs it fetched, the refusal of a command
 * before anything ran, or the dead letter of a valid command it gave up on. Each completes the
 * command.
 */
import { CommandType, type CommandRejected, type LogsFetched } from '@kpm/contracts';
import type { Effect } from './effects';
import type { ShardMemory } from './shard-memory';

export function logsFetched(
  memory: ShardMemory,
  fetched: LogsFetched,
  session: string,
  time: number,
): Effect[] {
  const { commandId, uuid, lines } = fetched;
  if (memory.completed.has(commandId)) return [];
  const row = memory.book.table.get(uuid);
  return memory.complete({
    commandId,
    commandType: CommandType.logs,
    session,
    status: 'succeeded',
    processes: row ? [row] : [],
    logs: [{ uuid, lines }],
    acceptedAt: time,
  });
}

export function commandRejected(
  memory: ShardMemory,
  rejected: CommandRejected,
  session: string,
  time: number,
): Effect[] {
  const { commandId, commandType, errors } = rejected;
  if (memory.completed.has(commandId)) return [];
  return memory.complete({
    commandId,
    commandType,
    session,
    status: 'rejected',
    processes: [],
    errors,
    acceptedAt: time,
  });
}

/** A valid command the boot-worker dead-lettered after its retries: what it was, and why. */
export interface AbandonedCommand {
  commandId: string;
  commandType: string;
  reason: string;
}

/** A command given up on fails, saying why, whatever of it was already under way. */
export function commandAbandoned(
  memory: ShardMemory,
  abandoned: AbandonedCommand,
  session: string,
  time: number,
): Effect[] {
  const { commandId, commandType, reason } = abandoned;
  if (memory.completed.has(commandId)) return [];
  return memory.complete({
    commandId,
    commandType,
    session,
    status: 'failed',
    processes: [],
    errors: [{ message: `the boot-worker gave up on it: ${reason}` }],
    acceptedAt: time,
  });
}
