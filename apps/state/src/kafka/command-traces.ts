/**
 * The trace of each open command of a partition (docs/design.md §3.4): a kill completes when the
 * last termination arrives, and that termination carries the trace of the boot that created the
 * pod. The completion and its broadcast must carry the kill's own trace, remembered here from the
 * command or its accepted fact until the command completes. A command that never completes here
 * (its partition moved, say) would stay forever: past `capacity` per partition the oldest trace
 * is dropped, and that command's completion, if it ever comes, carries its cause's trace.
 */
import type { Effect } from '../domain/effects';

export class CommandTraces {
  private readonly byPartition = new Map<number, Map<string, string>>();

  constructor(private readonly capacity: number) {}

  remember(partition: number, commandId: string | undefined, traceparent: string | undefined) {
    if (commandId === undefined || traceparent === undefined) return;
    let traces = this.byPartition.get(partition);
    if (!traces) this.byPartition.set(partition, (traces = new Map<string, string>()));
    traces.delete(commandId); // re-remembered: the most recent again
    traces.set(commandId, traceparent);
    for (const oldest of traces.keys()) {
      if (traces.size <= this.capacity) break;
      traces.delete(oldest);
    }
  }

  /** The trace `effect` carries: its command's, else the trace of the record that caused it. */
  traceOf(partition: number, effect: Effect, cause: string | undefined): string | undefined {
    const commandId = commandOf(effect);
    const traces = this.byPartition.get(partition);
    const own = commandId === undefined ? undefined : traces?.get(commandId);
    if (effect.kind === 'completion') traces?.delete(effect.completion.commandId);
    return own ?? cause;
  }

  release(partition: number): void {
    this.byPartition.delete(partition);
  }
}

function commandOf(effect: Effect): string | undefined {
  if (effect.kind === 'completion') return effect.completion.commandId;
  if (effect.kind === 'broadcast') {
    const commandId = effect.data?.commandId;
    return typeof commandId === 'string' ? commandId : undefined;
  }
  return undefined;
}
