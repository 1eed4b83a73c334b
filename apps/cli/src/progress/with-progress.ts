/** Runs a waiting command with a progress bar on stderr, fed by the session's events (TTY only). */
import type { ProcessManagerClient } from '@kpm/client';
import { coloursFor } from '../output';
import { ProgressBar } from '../render/progress-bar';
import { CommandProgress, type ProgressKind } from './command-progress';

interface ProgressPlan {
  commandId: string;
  kind: ProgressKind;
  /** Narrows the events read; absent when the session is not known yet (kill by uuid). */
  session?: string;
  total?: number;
}

export async function withProgress<T>(
  client: ProcessManagerClient,
  plan: ProgressPlan,
  work: () => Promise<T>,
): Promise<T> {
  const shown = await showProgress(client, plan);
  try {
    return await work();
  } finally {
    await shown.stop();
  }
}

/**
 * A progress bar on stderr fed by the session's events, positioned before the command is sent so
 * no fact is missed; nothing on a stream that is not a terminal, or when the events cannot be
 * read (no bar is no reason to fail the command). `stop` clears it.
 */
export async function showProgress(
  client: ProcessManagerClient,
  plan: ProgressPlan,
): Promise<{ stop(): Promise<void> }> {
  const none = { stop: () => Promise.resolve() };
  const bar = new ProgressBar(process.stderr, coloursFor(process.stderr));
  if (!bar.enabled) return none;
  const progress = new CommandProgress(plan.commandId, plan.kind, plan.total);
  const stream = client.events({
    session: plan.session,
    topics: ['process-events', 'terminations'],
  });
  try {
    await stream.ready();
  } catch {
    await stream.close();
    return none;
  }
  const feeding = (async () => {
    for await (const event of stream) if (progress.observe(event)) bar.update(progress.snapshot());
  })().catch(() => undefined);
  bar.update(progress.snapshot());
  return {
    stop: async () => {
      await stream.close();
      await feeding;
      bar.clear();
    },
  };
}
