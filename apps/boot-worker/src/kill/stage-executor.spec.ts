import type { V1Pod } from '@kubernetes/client-node';
import type { Role } from '@kpm/contracts';
import { planKill } from './kill-plan';
import type { ProcessPod } from './process-pod';
import { StopRequested } from '../commands/command-context';
import { StageExecutor, type KillPorts } from './stage-executor';

/** A pod of the simulation: how it reacts to SIGTERM (after `stopsAfterMs`, or never) and SIGKILL. */
interface SimPod {
  process: ProcessPod;
  stopsAfterMs: number;
  deletedAt?: number;
  killedAt?: number;
}

/** A deterministic cluster: a fake clock that jumps to when pods end, recording every delete. */
class SimCluster implements KillPorts {
  time = 0;
  readonly deletes: { name: string; grace: number; at: number }[] = [];
  readonly pods = new Map<string, SimPod>();

  add(name: string, role: Role, stopsAfterMs = 1000): ProcessPod {
    const pod: V1Pod = { metadata: { name, uid: `uid-${name}`, namespace: 'run-7' } };
    const process: ProcessPod = { uuid: `uuid-${name}`, name, session: 'run-7', role, pod };
    this.pods.set(`uid-${name}`, { process, stopsAfterMs });
    return process;
  }

  now(): number {
    return this.time;
  }

  deletePod(pod: V1Pod, grace: number): Promise<boolean> {
    const sim = this.pods.get(pod.metadata!.uid!)!;
    this.deletes.push({ name: pod.metadata!.name!, grace, at: this.time });
    if (grace === 0) sim.killedAt ??= this.time;
    else sim.deletedAt ??= this.time;
    return Promise.resolve(true);
  }

  private endsAt(sim: SimPod): number {
    const byTerm = sim.deletedAt === undefined ? Infinity : sim.deletedAt + sim.stopsAfterMs;
    return Math.min(byTerm, sim.killedAt ?? Infinity);
  }

  waitEnded(pods: readonly V1Pod[], timeoutMs: number): Promise<string[]> {
    const sims = pods.map((p) => this.pods.get(p.metadata!.uid!)!);
    const last = Math.max(...sims.map((s) => this.endsAt(s)));
    const limit = this.time + timeoutMs;
    this.time = Math.max(this.time, Math.min(last, limit));
    return Promise.resolve(
      sims.filter((s) => this.endsAt(s) > this.time).map((s) => s.process.pod.metadata!.uid!),
    );
  }
}

const timing = { gracePeriodSeconds: 30, escalationMarginSeconds: 5, forcedKillWaitSeconds: 15 };

describe('StageExecutor', () => {
  it('deletes stage after stage in shutdown order, each once the previous one ended', async () => {
    const sim = new SimCluster();
    const processes = [
      sim.add('root', 'root-controller', 2000),
      sim.add('ru-01', 'application', 1000),
      sim.add('ru-02', 'application', 3000),
      sim.add('lcs', 'infrastructure-applications', 500),
    ];
    const reports = await new StageExecutor(sim, 4).run(planKill(processes, timing), 0);
    expect(sim.deletes).toEqual([
      { name: 'ru-01', grace: 30, at: 0 },
      { name: 'ru-02', grace: 30, at: 0 },
      { name: 'root', grace: 30, at: 3000 },
      { name: 'lcs', grace: 30, at: 5000 },
    ]);
    expect(reports.map((r) => r.escalated)).toEqual([[], [], []]);
    expect(reports.map((r) => r.pending)).toEqual([[], [], []]);
  });

  it('kills with grace 0 what outlives grace + margin, then moves on', async () => {
    const sim = new SimCluster();
    const processes = [
      sim.add('stuck', 'application', Infinity),
      sim.add('root', 'root-controller'),
    ];
    const reports = await new StageExecutor(sim, 4).run(planKill(processes, timing), 0);
    expect(sim.deletes).toEqual([
      { name: 'stuck', grace: 30, at: 0 },
      { name: 'stuck', grace: 0, at: 35_000 },
      { name: 'root', grace: 30, at: 35_000 },
    ]);
    expect(reports[0]).toEqual({ uuids: ['uuid-stuck'], escalated: ['uuid-stuck'], pending: [] });
  });

  it('stops waiting at the command timeout but still deletes the later stages in order', async () => {
    const sim = new SimCluster();
    const processes = [
      sim.add('slow', 'application', 20_000),
      sim.add('root', 'root-controller', 20_000),
    ];
    const reports = await new StageExecutor(sim, 4).run(planKill(processes, timing, 10), 0);
    expect(sim.deletes).toEqual([
      { name: 'slow', grace: 30, at: 0 },
      { name: 'root', grace: 30, at: 10_000 },
    ]);
    expect(reports.map((r) => r.pending)).toEqual([['uuid-slow'], ['uuid-root']]);
    expect(reports.map((r) => r.escalated)).toEqual([[], []]);
  });

  it('gives up when the consumer stops, so the command is redelivered', async () => {
    const sim = new SimCluster();
    const stop = new AbortController();
    stop.abort();
    const run = new StageExecutor(sim, 4).run(
      planKill([sim.add('a', 'application')], timing),
      0,
      stop.signal,
    );
    await expect(run).rejects.toBeInstanceOf(StopRequested);
  });
});
