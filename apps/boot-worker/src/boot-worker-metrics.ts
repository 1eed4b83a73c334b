import type { Counter, Histogram, Registry } from 'prom-client';
import { ServiceMetrics } from '@kpm/service-kit';

/** The boot-worker's Prometheus metrics, registered in the service's registry (`/metrics`). */
export class BootWorkerMetrics {
  readonly commands: Counter<'type' | 'outcome'>;
  readonly commandSeconds: Histogram<'type'>;
  readonly processes: Counter<'outcome' | 'code'>;
  readonly killEscalations: Counter;

  constructor(registry: Registry) {
    const metrics = new ServiceMetrics(registry, 'boot_worker');
    this.commands = metrics.counter(
      'commands_total',
      'Commands handled, by type and outcome (carried_out, rejected, failed: retried or dead-lettered)',
      ['type', 'outcome'],
    );
    this.commandSeconds = metrics.histogram(
      'command_duration_seconds',
      'Time from receiving a command to its last fact, by type',
      [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      ['type'],
    );
    this.processes = metrics.counter(
      'processes_total',
      'Processes booted or failed to boot, by outcome and failure code',
      ['outcome', 'code'],
    );
    this.killEscalations = metrics.counter(
      'kill_escalations_total',
      'Pods killed with grace 0 after outliving their grace period and margin',
    );
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
