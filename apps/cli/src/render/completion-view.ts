/** A command's completion for people: what it was, how it ended, and its processes. */
import type { CommandCompleted } from '@kpm/contracts';
import { commandName } from '@kpm/client';
import type { Colours } from '../output';
import { formatProcessTable } from './process-table';

const STATUS_WORDS: Record<CommandCompleted['status'], string> = {
  succeeded: 'succeeded',
  failed: 'failed',
  rejected: 'was rejected',
  timed_out: 'timed out',
};

/** `kill 1b2c… succeeded in 2.4 s (session demo)` */
export function completionHeadline(completion: CommandCompleted, colours: Colours): string {
  const word = STATUS_WORDS[completion.status];
  const coloured = completion.status === 'succeeded' ? colours.green(word) : colours.red(word);
  const seconds = (completion.durationMs / 1000).toFixed(1);
  return `${commandName(completion.commandType)} ${completion.commandId} ${coloured} in ${seconds} s (session ${completion.session})`;
}

export function formatCompletion(
  completion: CommandCompleted,
  colours: Colours,
  columns?: readonly string[],
): string {
  const lines = [completionHeadline(completion, colours)];
  for (const error of completion.errors ?? []) {
    lines.push(`  ${colours.red('✗')} ${error.path ? `${error.path}: ` : ''}${error.message}`);
  }
  if (completion.pending?.length) {
    lines.push(`  still pending: ${completion.pending.join(', ')}`);
  }
  if (completion.processes.length > 0) {
    lines.push(formatProcessTable(completion.processes, colours, columns));
  }
  return lines.join('\n');
}
