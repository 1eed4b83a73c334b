/**
 * What a shard's effects become: Kafka records (effect-records.ts), each carrying its command's
 * trace, else the trace of the record that caused it (docs/design.md §3.4), counted in the metrics;
 * a completion is also a span in its command's trace when tracing is on.
 */
import { commandName, withTrace, type CommandCompleted } from '@kpm/contracts';
import { markSpan } from '@kpm/tracing';
import type { TransactionalRecord } from '@kpm/kafka';
import type { Effect } from '../domain/effects';
import type { FeedRecords } from '../feeds/feed-records';
import { CommandTraces } from './command-traces';
import type { EffectRecords } from './effect-records';
import type { ShardStep } from './shard-input';

export class ShardOutput {
  private readonly traces: CommandTraces;

  constructor(
    private readonly records: EffectRecords,
    tracesKept: number,
    private readonly count: (effects: readonly Effect[]) => void,
    /** DUNE's feeds, written in the same transaction (absent: all switched off). */
    private readonly feeds?: FeedRecords,
  ) {
    this.traces = new CommandTraces(tracesKept);
  }

  /** The records of what one input record did; the trace of its command is remembered. */
  ofRecord(partition: number, step: ShardStep): TransactionalRecord[] {
    this.traces.remember(partition, step.commandId, step.traceparent);
    return [
      ...this.traced(partition, step.effects, step.traceparent),
      ...this.feedsOf(step.effects),
    ];
  }

  /** The records of what time did (expired deadlines): each with its command's trace. */
  ofTime(partition: number, effects: readonly Effect[]): TransactionalRecord[] {
    return [...this.traced(partition, effects, undefined), ...this.feedsOf(effects)];
  }

  /** The records of what a restore found due, in the trace of the restore itself. */
  ofRestore(partition: number, effects: readonly Effect[]): TransactionalRecord[] {
    return [...this.encoded(partition, effects), ...this.feedsOf(effects)];
  }

  release(partition: number): void {
    this.traces.release(partition);
  }

  private traced(
    partition: number,
    effects: readonly Effect[],
    cause: string | undefined,
  ): TransactionalRecord[] {
    return effects.flatMap((effect) => {
      const trace = this.traces.traceOf(partition, effect, cause);
      if (effect.kind === 'completion') markCompletion(effect.completion, trace);
      return withTrace(trace, () => this.encoded(partition, [effect]));
    });
  }

  private encoded(partition: number, effects: readonly Effect[]): TransactionalRecord[] {
    this.count(effects);
    return this.records.encode(partition, effects);
  }

  private feedsOf(effects: readonly Effect[]): TransactionalRecord[] {
    return this.feeds ? this.feeds.encode(effects) : [];
  }
}

/** The completion, a span in its command's trace: where the command's time ends. */
function markCompletion(completion: CommandCompleted, trace: string | undefined): void {
  markSpan(`complete ${commandName(completion.commandType)}`, {
    parent: trace,
    attributes: {
      'kpm.command.id': completion.commandId,
      'kpm.command.type': completion.commandType,
      'kpm.command.status': completion.status,
      'kpm.session': completion.session,
      'kpm.processes': completion.processes.length,
      ...(completion.durationMs === undefined ? {} : { 'kpm.duration_ms': completion.durationMs }),
    },
  });
}
