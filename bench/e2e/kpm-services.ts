import { eventually } from '@kpm/common';
import { readFileSync } from 'node:fs';
import { SERVICE_V8_FLAGS } from '@kpm/service-kit/v8-flags';
import { ensureServiceBuilt } from '@kpm/stack';
import { ServiceProcess } from '../../test/support/service-process';
import { stackEnv } from '../../test/support/stack-env';

export const SERVICES = ['boot-worker', 'watcher', 'state'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** A process's resident set in MB, from /proc (undefined once it is gone). */
export function rssMb(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a process has used, in ms, from /proc (undefined once it is gone). */
export function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Linux's USER_HZ, the unit of /proc/<pid>/stat's times, on every architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** A service's memory as its metrics tell it, MB. */
export interface MemoryParts {
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
}

/**
 * kpm's three services as child processes, compiled (`node dist/apps/<service>/src/main.js`, as
 * kpm's image runs them, with their Deployments' V8 flags; built first when a source is newer), under a topic prefix and label
 * domain of the bench's own; their memory sampled while they run.
 */
export class KpmServices {
  readonly peakMb: Record<string, number> = {};
  private readonly processes = new Map<ServiceName, ServiceProcess>();
  private sampler?: NodeJS.Timeout;

  constructor(
    readonly prefix: string,
    readonly domain: string,
    /** Settings beside the bench's own (e.g. the real node's image). */
    private readonly extraEnv: Record<string, string> = {},
  ) {}

  env(service: ServiceName): Record<string, string> {
    const { brokers, kubeconfig, topicReplication } = stackEnv();
    return {
      KPM_KAFKA_BROKERS: brokers.join(','),
      ...topicReplication,
      KPM_TOPIC_PREFIX: this.prefix,
      KPM_LABEL_DOMAIN: this.domain,
      KPM_INSTANCE: `bench-${service}`,
      KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
      KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0',
      KAFKAJS_NO_PARTITIONER_WARNING: '1',
      ...(kubeconfig ? { KUBECONFIG: kubeconfig } : {}),
      ...this.extraEnv,
    };
  }

  async start(log: (message: string) => void = () => undefined): Promise<void> {
    for (const service of SERVICES) {
      const entry = await ensureServiceBuilt(service, log);
      // With their Deployments' V8 flags (deploy/base), on the command line as there.
      const child = new ServiceProcess(service, this.env(service), entry, SERVICE_V8_FLAGS);
      await child.start(180_000);
      this.processes.set(service, child);
    }
    await this.watcherLeading(60_000);
    this.sampler = setInterval(() => this.sample(), 250);
  }

  /** A running service's HTTP address (its API, metrics and health). */
  url(service: ServiceName): string {
    const child = this.processes.get(service);
    if (!child) throw new Error(`${service} is not running`);
    return child.url;
  }

  /** Each service's resident memory now, in MB. */
  rss(): Record<string, number> {
    const now: Record<string, number> = {};
    for (const [service, child] of this.processes) {
      const mb = child.pid === undefined ? undefined : rssMb(child.pid);
      if (mb !== undefined) now[service] = mb;
    }
    return now;
  }

  /** Each service's CPU time so far, in ms. */
  cpu(): Record<string, number> {
    const now: Record<string, number> = {};
    for (const [service, child] of this.processes) {
      const ms = child.pid === undefined ? undefined : cpuMs(child.pid);
      if (ms !== undefined) now[service] = ms;
    }
    return now;
  }

  /**
   * Where each service's memory is, in MB, from its own metrics: the V8 heap in use and as
   * reserved, and the memory outside it that V8 is told of (Buffers, ArrayBuffers).
   */
  async memoryParts(): Promise<Record<string, MemoryParts>> {
    const now: Record<string, MemoryParts> = {};
    for (const [service, child] of this.processes) {
      const metrics = await fetch(`${child.url}/metrics`)
        .then((response) => response.text())
        .catch(() => '');
      const mb = (name: string) => {
        const value = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metrics)?.[1];
        return value === undefined ? undefined : Math.round(Number(value) / 2 ** 20);
      };
      const heapUsedMb = mb('kpm_nodejs_heap_size_used_bytes');
      const heapTotalMb = mb('kpm_nodejs_heap_size_total_bytes');
      const externalMb = mb('kpm_nodejs_external_memory_bytes');
      if (heapUsedMb !== undefined && heapTotalMb !== undefined && externalMb !== undefined)
        now[service] = { heapUsedMb, heapTotalMb, externalMb };
    }
    return now;
  }

  async stop(): Promise<void> {
    clearInterval(this.sampler);
    for (const child of [...this.processes.values()].reverse()) await child.kill('SIGTERM');
  }

  private sample(): void {
    for (const [service, mb] of Object.entries(this.rss())) {
      this.peakMb[service] = Math.max(this.peakMb[service] ?? 0, mb);
    }
  }

  /** The watcher holds its Lease (a standby replica is ready too, but sees nothing). */
  private async watcherLeading(timeoutMs: number): Promise<void> {
    const url = this.processes.get('watcher')!.url;
    await eventually(
      async () => {
        const metrics = await (await fetch(`${url}/metrics`)).text();
        return /^kpm_watcher_leader(\{[^}]*\})? 1$/m.test(metrics);
      },
      { what: 'the watcher leading', timeoutMs, everyMs: 200 },
    );
  }
}
