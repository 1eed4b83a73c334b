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
  const bar = new ProgressBar(process.stderr, coloursFor(process.stderr));
  if (!bar.enabled) return work();
  const progress = new CommandProgress(plan.commandId, plan.kind, plan.total);
  const stream = client.events({
    session: plan.session,
    topics: ['process-events', 'terminations'],
  });
  try {
    await stream.ready(); // positioned before the command is sent, so no fact is missed
  } catch {
    await stream.close();
    return work(); // no bar is no reason to fail the command
  }
  const feeding = (async () => {
    for await (const event of stream) if (progress.observe(event)) bar.update(progress.snapshot());
  })().catch(() => undefined);
  bar.update(progress.snapshot());
  try {
    return await work();
  } finally {
    await stream.close();
    await feeding;
    bar.clear();
  }
}
