import { Registry } from 'prom-client';
import { ServiceMetrics } from './service-metrics';

describe('ServiceMetrics', () => {
  it.each<[string, (m: ServiceMetrics) => { inc?: unknown; observe?: unknown }, string, string]>([
    [
      'a counter',
      (m) => m.counter('things_total', 'Things', ['kind']),
      'kpm_svc_things_total',
      'counter',
    ],
    ['a gauge', (m) => m.gauge('leader', 'Leader'), 'kpm_svc_leader', 'gauge'],
    [
      'a histogram',
      (m) => m.histogram('lag_seconds', 'Lag', [1, 2]),
      'kpm_svc_lag_seconds',
      'histogram',
    ],
  ])('registers %s named for the service in its registry', async (_, make, name, type) => {
    const registry = new Registry();
    make(new ServiceMetrics(registry, 'svc'));
    const metric = registry.getSingleMetric(name);
    expect(metric).toBeDefined();
    const [json] = (await registry.getMetricsAsJSON()).filter((m) => m.name === name);
    expect(json.type).toBe(type);
  });

  it('keeps label names and buckets', async () => {
    const registry = new Registry();
    const metrics = new ServiceMetrics(registry, 'svc');
    metrics.counter('things_total', 'Things', ['kind']).inc({ kind: 'a' });
    metrics.histogram('lag_seconds', 'Lag', [1, 2]).observe(1.5);
    const text = await registry.metrics();
    expect(text).toContain('# HELP kpm_svc_things_total Things');
    expect(text).toContain('kpm_svc_things_total{kind="a"} 1');
    expect(text).toContain('kpm_svc_lag_seconds_bucket{le="2"} 1');
    expect(text).toContain('kpm_svc_lag_seconds_bucket{le="1"} 0');
  });
});
