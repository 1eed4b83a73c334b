/** Prometheus metrics of the state service, on the service kit's registry. */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { typeLabel, type ProcessInstance } from '@kpm/contracts';
import type { TransactionTiming } from '@kpm/kafka';
import type { Effect } from '../domain/effects';
import type { StateShard } from '../domain/state-shard';

export class StateMetrics {
  readonly completions: Counter<'status' | 'command'>;
  readonly terminations: Counter;
  readonly automatic: Counter<'action' | 'outcome'>;
  readonly restoreSeconds: Histogram;
  readonly restoreReplayed: Counter;
  readonly snapshots: Counter;
  readonly transactionSeconds: Histogram<'phase'>;
  private shards: () => StateShard[] = () => [];

  constructor(registry: Registry) {
    this.completions = new Counter({
      name: 'kpm_state_completions_total',
      help: 'Completions published, by status and command type',
      labelNames: ['status', 'command'],
      registers: [registry],
    });
    this.terminations = new Counter({
      name: 'kpm_state_terminations_total',
      help: 'Terminations recorded (first sight of each pod end)',
      registers: [registry],
    });
    this.automatic = new Counter({
      name: 'kpm_state_automatic_actions_total',
      help: "Steps of exit-policy decisions (docs/design.md §4 'Exit policy'), by the rule's action and the step's outcome",
      labelNames: ['action', 'outcome'],
      registers: [registry],
    });
    this.restoreSeconds = new Histogram({
      name: 'kpm_state_restore_seconds',
      help: 'Time to restore assigned partitions from Kafka',
      buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers: [registry],
    });
    this.restoreReplayed = new Counter({
      name: 'kpm_state_restore_replayed_facts_total',
      help: 'Fact records replayed by restores (after the snapshots where there were some)',
      registers: [registry],
    });
    this.snapshots = new Counter({
      name: 'kpm_state_snapshots_total',
      help: 'Shard snapshots handed to their transaction on kpm.state-snapshots',
      registers: [registry],
    });
    this.transactionSeconds = new Histogram({
      name: 'kpm_state_transaction_seconds',
      help: "An input batch's transaction by phase: process (the handler's decisions) and commit (producing and committing in Kafka)",
      labelNames: ['phase'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    const shards = () => this.shards();
    new Gauge({
      name: 'kpm_state_open_commands',
      help: 'Commands started and not completed, on the partitions this replica owns',
      registers: [registry],
      collect() {
        this.set(shards().reduce((n, s) => n + s.openCommands().length, 0));
      },
    });
    new Gauge({
      name: 'kpm_state_owned_partitions',
      help: 'Partition numbers this replica owns',
      registers: [registry],
      collect() {
        this.set(shards().length);
      },
    });
  }

  observeTransaction(timing: TransactionTiming): void {
    this.transactionSeconds.observe({ phase: 'process' }, timing.processMs / 1000);
    this.transactionSeconds.observe({ phase: 'commit' }, timing.commitMs / 1000);
  }

  observeShards(shards: () => StateShard[]): void {
    this.shards = shards;
  }

  /** Counts the completions, first terminations and automatic steps among effects about to be published. */
  count(effects: readonly Effect[]): void {
    for (const effect of effects) {
      if (effect.kind === 'completion') {
        this.completions.inc({
          status: effect.completion.status,
          // A rejected command's type is the sender's text: an unknown one is a fixed label value.
          command: typeLabel(effect.completion.commandType),
        });
      } else if (
        effect.kind === 'broadcast' &&
        effect.broadcastType === 'SUBPROCESS_STATUS_UPDATE'
      ) {
        this.terminations.inc();
      } else if (effect.kind === 'process' && effect.instance.automatic?.last) {
        const { action, outcome } = effect.instance.automatic.last;
        if (stepOf(effect.instance)) this.automatic.inc({ action, outcome });
      }
    }
  }
}

/**
 * A row whose automatic action just took a step: the step's own row. A row written for another
 * reason (a restart's new pod carries its history on) is not counted again.
 */
function stepOf(instance: ProcessInstance): boolean {
  const last = instance.automatic!.last!;
  return last.podUid === instance.podUid;
}
