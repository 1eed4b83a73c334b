import { errorText, logEvent, type Clock, type LogEvent } from '@kpm/common';
import type { NodeLoss } from '@kpm/kube';

interface NodeLossPollDeps {
  /** The nodes the cluster has lost now (Ready Unknown), by name. */
  lostNodes(signal: AbortSignal): Promise<Map<string, NodeLoss>>;
  /** Told every answer; a change of the set is also logged. */
  lost(nodes: ReadonlyMap<string, NodeLoss>): void;
  everyMs: number;
  clock: Clock;
  logger: { log(entry: LogEvent): void; warn(entry: LogEvent): void };
}

/**
 * Asks every `everyMs` which nodes the cluster has lost, for one leadership term. A failed ask is
 * logged and asked again next time; what was known stays known meanwhile. A handful of nodes in
 * one list call: a poll costs less than a second watch stream and its restarts.
 */
export class NodeLossPoll {
  private known = '';

  constructor(private readonly deps: NodeLossPollDeps) {}

  async run(signal: AbortSignal): Promise<void> {
    const { everyMs, clock } = this.deps;
    if (everyMs <= 0) return;
    while (!signal.aborted) {
      await this.check(signal);
      await clock.tick(everyMs, signal);
    }
  }

  private async check(signal: AbortSignal): Promise<void> {
    const { logger } = this.deps;
    let lost: Map<string, NodeLoss>;
    try {
      lost = await this.deps.lostNodes(signal);
    } catch (error) {
      if (!signal.aborted) logger.warn(logEvent('nodes.check_failed', { error: errorText(error) }));
      return;
    }
    if (signal.aborted) return;
    const nodes = [...lost.keys()].sort();
    const names = nodes.join(',');
    if (names !== this.known) {
      logger.log(logEvent('nodes.lost', { nodes }));
      this.known = names;
    }
    this.deps.lost(lost);
  }
}
