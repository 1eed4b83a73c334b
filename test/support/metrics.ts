/**
 * Reading a service's Prometheus metrics (`/metrics`) in tests and benches: one parser for the
 * text format kpm's services expose (every line carries the `service` default label).
 */

/** A metric's value summed over the label sets matching `labels`; undefined when absent. */
export function metricValue(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  let total: number | undefined;
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const set = match[2] ?? '';
    if (!Object.entries(labels).every(([key, value]) => set.includes(`${key}="${value}"`))) {
      continue;
    }
    total = (total ?? 0) + Number(match[3]);
  }
  return total;
}

/** A metric of the service at `url`; throws, naming it, when the service does not have it. */
export async function fetchMetric(url: string, name: string): Promise<number> {
  const value = metricValue(await (await fetch(`${url}/metrics`)).text(), name);
  if (value === undefined) throw new Error(`${url}: no ${name} in /metrics`);
  return value;
}
