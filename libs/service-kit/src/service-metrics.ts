import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/**
 * Makes one service's Prometheus metrics in its registry (`/metrics`), each named
 * `kpm_<service>_<name>`, so a metrics class lists only what it measures.
 */
export class ServiceMetrics {
  constructor(
    private readonly registry: Registry,
    /** The service's part of every name, e.g. `boot_worker`. */
    private readonly service: string,
  ) {}

  counter<L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
  ): Counter<L> {
    return new Counter({ ...this.common(name, help), labelNames });
  }

  gauge<L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
  ): Gauge<L> {
    return new Gauge({ ...this.common(name, help), labelNames });
  }

  histogram<L extends string = never>(
    name: string,
    help: string,
    buckets: number[],
    labelNames: readonly L[] = [],
  ): Histogram<L> {
    return new Histogram({ ...this.common(name, help), buckets, labelNames });
  }

  private common(name: string, help: string) {
    return { name: `kpm_${this.service}_${name}`, help, registers: [this.registry] };
  }
}
