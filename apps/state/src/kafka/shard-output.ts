/**
 * What a shard's effects become: Kafka records (effect-records.ts), each carrying its command's
 * trace, else the trace of the record that caused it (docs/design.md §3.4), counted in the metrics.
 */
import { withTrace } from '@kpm/contracts';
import type { TransactionalRecord } from '@kpm/kafka';
import type { Effect } from '../domain/effects';
import { CommandTraces } from './command-traces';
import type { EffectRecords } from './effect-records';
import type { ShardStep } from './shard-input';

export class ShardOutput {
  private readonly traces: CommandTraces;

  constructor(
    private readonly records: EffectRecords,
    tracesKept: number,
    private readonly count: (effects: readonly Effect[]) => void,
  ) {
    this.traces = new CommandTraces(tracesKept);
  }

  /** The records of what one input record did; the trace of its command is remembered. */
  ofRecord(partition: number, step: ShardStep): TransactionalRecord[] {
    this.traces.remember(partition, step.commandId, step.traceparent);
    return this.traced(partition, step.effects, step.traceparent);
  }

  /** The records of what time did (expired deadlines): each with its command's trace. */
  ofTime(partition: number, effects: readonly Effect[]): TransactionalRecord[] {
    return this.traced(partition, effects, undefined);
  }

  /** The records of what a restore found due, in the trace of the restore itself. */
  ofRestore(partition: number, effects: readonly Effect[]): TransactionalRecord[] {
    this.count(effects);
    return this.records.encode(partition, effects);
  }

  release(partition: number): void {
    this.traces.release(partition);
  }

  private traced(
    partition: number,
    effects: readonly Effect[],
    cause: string | undefined,
  ): TransactionalRecord[] {
    return effects.flatMap((effect) =>
      withTrace(this.traces.traceOf(partition, effect, cause), () =>
        this.ofRestore(partition, [effect]),
      ),
    );
  }
}
