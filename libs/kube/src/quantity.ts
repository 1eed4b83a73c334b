/**
 * Kubernetes resource quantities (`500m`, `2`, `1.5Gi`, `4G`, `1e3`) as numbers: cores for cpu,
 * bytes for memory and hugepages, counts for the rest. A fit of requests against a node's
 * allocatable sums and compares them as whole thousandths (`milliOf`), as the scheduler does, so
 * 3 − 100m − 200m leaves exactly 2700m. The suffixes are apimachinery's (`resource.Quantity`).
 */
const SUFFIXES: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/;

/** The quantity's value, or undefined when it is not one. */
export function parseQuantity(text: string): number | undefined {
  const match = QUANTITY.exec(text.trim());
  if (!match) return undefined;
  const [, number, exponent, suffix = ''] = match;
  const value = Number(number) * (exponent ? 10 ** Number(exponent.slice(1)) : SUFFIXES[suffix]);
  return Number.isFinite(value) ? value : undefined;
}

/** The quantity in whole thousandths of its unit (millicores for cpu), or undefined. */
export function milliOf(text: string): number | undefined {
  const value = parseQuantity(text);
  return value === undefined ? undefined : Math.round(value * 1000);
}

/** A quantity given in thousandths (`milliOf`) for a message: cpu in cores or `m`, bytes in Gi/Mi. */
export function formatQuantity(resource: string, milli: number): string {
  const value = milli / 1000;
  if (resource === 'cpu')
    return Number.isInteger(value) ? String(value) : `${Math.round(value * 1000)}m`;
  for (const [suffix, size] of [
    ['Gi', 2 ** 30],
    ['Mi', 2 ** 20],
  ] as const)
    if (value >= size && value % (size / 4) === 0) return `${value / size}${suffix}`;
  return String(value);
}
