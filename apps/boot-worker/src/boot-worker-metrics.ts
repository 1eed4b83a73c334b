import { Counter, Histogram, type Registry } from 'prom-client';

/** The boot-worker's Prometheus metrics, registered in the service's registry (`/metrics`). */
export class BootWorkerMetrics {
  readonly commands: Counter<'type' | 'outcome'>;
  readonly commandSeconds: Histogram<'type'>;
  readonly processes: Counter<'outcome' | 'code'>;
  readonly killEscalations: Counter;

  constructor(registry: Registry) {
    const registers = [registry];
    this.commands = new Counter({
      name: 'kpm_boot_worker_commands_total',
      help: 'Commands handled, by type and outcome (carried_out, rejected, failed: retried or dead-lettered)',
      labelNames: ['type', 'outcome'],
      registers,
    });
    this.commandSeconds = new Histogram({
      name: 'kpm_boot_worker_command_duration_seconds',
      help: 'Time from receiving a command to its last fact, by type',
      labelNames: ['type'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers,
    });
    this.processes = new Counter({
      name: 'kpm_boot_worker_processes_total',
      help: 'Processes booted or failed to boot, by outcome and failure code',
      labelNames: ['outcome', 'code'],
      registers,
    });
    this.killEscalations = new Counter({
      name: 'kpm_boot_worker_kill_escalations_total',
      help: 'Pods killed with grace 0 after outliving their grace period and margin',
      registers,
    });
  }

  /** Times a command and counts how it ended. */
  async command<T extends unknown[]>(type: string, handle: () => Promise<T>): Promise<T> {
    const stop = this.commandSeconds.startTimer({ type });
    try {
      const errors = await handle();
      this.commands.inc({ type, outcome: errors.length > 0 ? 'rejected' : 'carried_out' });
      return errors;
    } catch (error) {
      this.commands.inc({ type, outcome: 'failed' });
      throw error;
    } finally {
      stop();
    }
  }
}
