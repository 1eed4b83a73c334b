import type { Command } from 'commander';
import { withClient } from '../cli-context';
import type { CommandCompleted, ProcessInstance } from '@kpm/contracts';
import { outcomeError, printCompletion } from '../command-outcome';
import {
  addActingFlag,
  addQueryCommandFlags,
  queryOf,
  timeoutMs,
  type ActingFlags,
  type QueryCommandFlags,
} from '../options';
import { printJson } from '../output';

export function registerFlushCommand(program: Command): void {
  const command = addActingFlag(
    addQueryCommandFlags(
      program
        .command('flush')
        .description(
          'forget DEAD processes (all sessions unless --session); prints what was flushed',
        ),
    ),
    'flush as this user (default: KPM_USER, else you)',
  );
  command.addHelpText(
    'after',
    '\nExamples:\n  npx kpm flush --session run-42\n  npx kpm flush --owner alice --as alice',
  );
  command.action((flags: FlushFlags) => flush(flags));
}

type FlushFlags = QueryCommandFlags & ActingFlags;

async function flush(flags: FlushFlags): Promise<void> {
  const query = queryOf(flags);
  const options = { command: 'flush', json: flags.json };
  const completions = await withClient(async (client) => {
    try {
      // The state service flushes within the command's session: name each one that has DEAD processes.
      const sessions =
        query.session !== undefined || query.uuids?.length
          ? [query.session]
          : deadSessions(await client.ps(query, { timeoutMs: timeoutMs(flags) }));
      const done: CommandCompleted[] = [];
      for (const session of sessions) {
        const wait = { wait: true, timeoutMs: timeoutMs(flags) };
        done.push((await client.flush({ ...query, session }, wait)).completion!);
      }
      return done;
    } catch (error) {
      throw outcomeError(options, error);
    }
  }, flags.as);
  if (flags.json) printJson(completions);
  else if (completions.length === 0) console.log('no DEAD processes to flush');
  else for (const completion of completions) printCompletion(completion, options);
}

function deadSessions(processes: readonly ProcessInstance[]): string[] {
  const dead = processes.filter((p) => p.statusCode === 'DEAD');
  return [...new Set(dead.map((p) => p.description.metadata.session))].sort();
}
