/**
 * Commands the boot-worker answers with one fact: the logs it fetched, the refusal of a command
 * before anything ran, or the dead letter of a valid command it gave up on. Each completes the
 * command once, by its rule (completion/logs.ts, rejected.ts, abandoned.ts).
 */
import type { CommandRejected, LogsFetched } from '@kpm/contracts';
import { abandonedCompletion, type AbandonedCommand } from './completion/abandoned';
import { logsCompletion } from './completion/logs';
import { rejectedCompletion } from './completion/rejected';
import type { Effect } from './effects';
import type { ShardMemory } from './shard-memory';

export type { AbandonedCommand } from './completion/abandoned';

export function logsFetched(
  memory: ShardMemory,
  fetched: LogsFetched,
  session: string,
  time: number,
): Effect[] {
  if (memory.completed.has(fetched.commandId)) return [];
  const row = memory.book.table.get(fetched.uuid);
  return memory.complete(logsCompletion(fetched, row, session, time));
}

export function commandRejected(
  memory: ShardMemory,
  rejected: CommandRejected,
  session: string,
  time: number,
): Effect[] {
  if (memory.completed.has(rejected.commandId)) return [];
  return memory.complete(rejectedCompletion(rejected, session, time));
}

/** A command given up on fails, saying why, whatever of it was already under way. */
export function commandAbandoned(
  memory: ShardMemory,
  abandoned: AbandonedCommand,
  session: string,
  time: number,
): Effect[] {
  if (memory.completed.has(abandoned.commandId)) return [];
  return memory.complete(abandonedCompletion(abandoned, session, time));
}
