/**
 * The completions a replica keeps for `GET /v1/commands/:id`, the most recent first: at most
 * `maxCompletions` of them and at most `maxProcesses` processes listed in them all, so the cache
 * costs a bounded amount of memory however large the commands (a 10,000-process boot lists
 * 10,000 instances). The latest completion is always kept, whatever its size. Older ones remain
 * on `kpm.completions`; a client that missed one reads it there. Each is kept as its JSON text,
 * less than half the heap of the parsed instances, and parsed again when asked for.
 */
import type { CommandCompleted } from '@kpm/contracts';

export class CompletionCache {
  private readonly byId = new Map<string, { json: string; processes: number }>();
  private listed = 0;

  constructor(
    private readonly maxCompletions: number,
    private readonly maxProcesses: number,
  ) {}

  get size(): number {
    return this.byId.size;
  }

  /** Processes listed in the kept completions. */
  get processes(): number {
    return this.listed;
  }

  get(commandId: string): CommandCompleted | undefined {
    const kept = this.byId.get(commandId);
    return kept && (JSON.parse(kept.json) as CommandCompleted);
  }

  put(completion: CommandCompleted): void {
    this.drop(completion.commandId);
    const processes = completion.processes.length;
    this.byId.set(completion.commandId, { json: JSON.stringify(completion), processes });
    this.listed += processes;
    for (const oldest of this.byId.keys()) {
      if (this.byId.size === 1) return;
      if (this.byId.size <= this.maxCompletions && this.listed <= this.maxProcesses) return;
      this.drop(oldest);
    }
  }

  private drop(commandId: string): void {
    const kept = this.byId.get(commandId);
    if (!kept) return;
    this.listed -= kept.processes;
    this.byId.delete(commandId);
  }
}
