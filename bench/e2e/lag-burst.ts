import { EventEmitter } from 'node:events';
import { Watch, type V1Pod } from '@kubernetes/client-node';
import type { PodLab } from '../../test/support/kpm-pods';
import type { FactClock } from './fact-clock';
import type { LagResult } from './results';
import { cdf, summarize } from './stats';

/** An independent watch on the lab's pods: when each was first seen running and terminal. */
class PodPhases {
  readonly running = new Set<string>();
  readonly terminalAtMs = new Map<string, number>();
  readonly changed = new EventEmitter().setMaxListeners(0);
  private abort?: AbortController;

  constructor(private readonly lab: PodLab) {}

  async start(): Promise<void> {
    this.abort = await new Watch(this.lab.kubeconfig).watch(
      `/api/v1/namespaces/${this.lab.namespace}/pods`,
      {},
      (_type: string, pod: V1Pod) => this.see(pod),
      () => undefined,
    );
  }

  private see(pod: V1Pod): void {
    const uid = pod.metadata!.uid!;
    const phase = pod.status?.phase;
    if (phase === 'Running') this.running.add(uid);
    if ((phase === 'Failed' || phase === 'Succeeded') && !this.terminalAtMs.has(uid)) {
      this.terminalAtMs.set(uid, Date.now());
    }
    this.changed.emit('pod');
  }

  until(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.changed.off('pod', check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.changed.off('pod', check);
        reject(new Error(`${what}: not within ${timeoutMs} ms`));
      }, timeoutMs);
      this.changed.on('pod', check);
      check();
    });
  }

  stop(): void {
    this.abort?.abort();
  }
}

async function deleteAll(lab: PodLab, names: readonly string[], parallel: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < names.length) await lab.delete(names[next++], 5);
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/**
 * `pods` kpm-labelled pods run, then are deleted at once by 64 concurrent requests (they stop at
 * once: stop-ms 0). The lag of each is from this watch seeing it terminal to the CreateTime of
 * its termination record — what the watcher adds, as a client would see it.
 */
export async function lagBurst(lab: PodLab, clock: FactClock, pods: number): Promise<LagResult> {
  const phases = new PodPhases(lab);
  await phases.start();
  try {
    const names = Array.from({ length: pods }, (_, i) => `burst-${String(i).padStart(4, '0')}`);
    const created = await lab.createMany(names, { sim: { 'sim.kpm.daq/stop-ms': '0' } }, 64);
    const uids = created.map((pod) => pod.metadata!.uid!);
    await phases.until('all burst pods running', () => phases.running.size >= pods, 300_000);
    await deleteAll(lab, names, 64);
    await phases.until('all burst pods terminal', () => phases.terminalAtMs.size >= pods, 300_000);
    await clock.until(
      'every burst termination on Kafka',
      () => (uids.every((uid) => clock.terminations.has(uid)) ? true : undefined),
      300_000,
    );
    const lags = uids.map((uid) => clock.terminations.get(uid)! - phases.terminalAtMs.get(uid)!);
    return { pods, summary: summarize(lags), cdf: cdf(lags) };
  } finally {
    phases.stop();
  }
}
