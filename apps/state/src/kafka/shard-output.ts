/**
 * What a shard's effects become: Kafka records (effect-records.ts), each carrying its command's
 * trace, else the trace of the record that caused it (docs/design.md §3.4), counted in the metrics;
 * a completion is also a span in its command's trace when tracing is on, once its transaction
 * committed (an aborted one's completion is decided again after the restore, and told then).
 */
import { commandName, withTrace, type CommandCompleted } from '@kpm/contracts';
import { markSpan, tracingEnabled } from '@kpm/tracing';
import type { TransactionalRecord } from '@kpm/kafka';
import type { Effect } from '../domain/effects';
import type { FeedRecords } from '../feeds/feed-records';
import { CommandTraces } from './command-traces';
import type { EffectRecords } from './effect-records';
import type { ShardStep } from './shard-input';

export class ShardOutput {
  private readonly traces: CommandTraces;
  /** Each partition's completions decided in its open transaction, told once it commits. */
  private readonly decided = new Map<number, Array<() => void>>();

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

  /** p's transaction committed: its completions are spans now, each from decided to durable. */
  committed(partition: number): void {
    const marks = this.decided.get(partition);
    this.decided.delete(partition);
    for (const mark of marks ?? []) mark();
  }

  /** p left this replica, or its transaction failed: what it decided is void, so never told. */
  release(partition: number): void {
    this.traces.release(partition);
    this.decided.delete(partition);
  }

  private traced(
    partition: number,
    effects: readonly Effect[],
    cause: string | undefined,
  ): TransactionalRecord[] {
    return effects.flatMap((effect) => {
      const trace = this.traces.traceOf(partition, effect, cause);
      if (effect.kind === 'completion') this.decide(partition, effect.completion, trace);
      return withTrace(trace, () => this.encoded(partition, [effect]));
    });
  }

  private decide(partition: number, completion: CommandCompleted, trace: string | undefined) {
    if (!tracingEnabled()) return;
    const decidedAt = new Date();
    const marks = this.decided.get(partition) ?? [];
    marks.push(() => markCompletion(completion, trace, decidedAt));
    this.decided.set(partition, marks);
  }

  private encoded(partition: number, effects: readonly Effect[]): TransactionalRecord[] {
    this.count(effects);
    return this.records.encode(partition, effects);
  }

  private feedsOf(effects: readonly Effect[]): TransactionalRecord[] {
    return this.feeds ? this.feeds.encode(effects) : [];
  }
}

/**
 * The completion, a span in its command's trace where the command's time ends: from when it was
 * decided to when its transaction made it durable.
 */
function markCompletion(
  completion: CommandCompleted,
  trace: string | undefined,
  decidedAt: Date,
): void {
  markSpan(`complete ${commandName(completion.commandType)}`, {
    parent: trace,
    startTime: decidedAt,
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
