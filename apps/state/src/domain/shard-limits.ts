/**
 * How much a shard remembers only for late duplicates (docs/design.md §6.6): the ids of the
 * last commands it completed, the boot facts held for commands not accepted (yet), and the pods
 * of processes it forgot on a flush. Each is per shard (one partition number).
 */
import { StateConfig } from '@kpm/config';

export interface ShardLimits {
  completedCommands: number;
  /** Commands whose boot facts came before their acceptance. */
  heldCommands: number;
  forgottenPods: number;
}

export function shardLimits(state: StateConfig = new StateConfig()): ShardLimits {
  return {
    completedCommands: state.completedCommandsKept,
    heldCommands: state.heldCommandsKept,
    forgottenPods: state.forgottenPodsKept,
  };
}
