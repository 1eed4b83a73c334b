/**
 * Prometheus rules against what kpm exports: the series a rule file names, and the series a
 * service's /metrics declares (its `# TYPE` lines, so a labelled counter never incremented counts).
 */

interface RuleFile {
  groups: { rules: { expr: string }[] }[];
}

/** Prometheus' own series that rules may name beside kpm's. */
const PROMETHEUS_SERIES = new Set(['up']);

/** The series (metric names) the rules' expressions read, sorted, without recording rules. */
export function seriesNamedInRules(rules: unknown): string[] {
  const names = new Set<string>();
  for (const group of (rules as RuleFile).groups) {
    for (const rule of group.rules) {
      // Label values are quoted; metric names are bare words (recording rules have colons).
      const bare = rule.expr.replace(/"[^"]*"/g, '""');
      for (const match of bare.matchAll(/(?<![\w:])(kpm_\w+|up)(?![\w:(])/g)) names.add(match[1]);
    }
  }
  return [...names].sort();
}

/** Every series name a /metrics text declares, histograms' and summaries' suffixes included. */
export function exportedSeries(metricsText: string): string[] {
  const names: string[] = [];
  for (const match of metricsText.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = match;
    names.push(name);
    if (type === 'histogram') names.push(`${name}_bucket`, `${name}_sum`, `${name}_count`);
    if (type === 'summary') names.push(`${name}_sum`, `${name}_count`);
  }
  return names;
}

/** The named series that are neither exported nor Prometheus' own. */
export function missingSeries(named: string[], exported: Set<string>): string[] {
  return named.filter((name) => !exported.has(name) && !PROMETHEUS_SERIES.has(name));
}
