/**
 * The name of a process's pod and Service, derived from drunc's process name (docs/design.md
 * §6.3 "Names"). A process's name is drunc's (`dummy_boot_0`, `RU.01`); the pod's name is
 * kpm's business: a Service needs a DNS-1035 label (≤ 63 lower-case letters, digits and `-`,
 * starting with a letter).
 *
 * - a name that already is such a label is the pod's name, unchanged (every name kpm accepted
 *   before drunc's names were, so existing sessions and files keep their pods);
 * - any other name is lower-cased, each run of other characters becomes one `-`, a `p-` goes
 *   before a start that is not a letter, the result is cut to 54 characters, and `-` plus the
 *   first 8 hex digits of the SHA-256 of the exact name follows: `dummy_boot_0` →
 *   `dummy-boot-0-<hash>`, so `RU-01` and `ru_01` do not meet on `ru-01`.
 *
 * Stable: the same name gives the same pod name on every boot, restart and redelivery. Two
 * names of one session whose pod names still meet (a label that spells another name's derived
 * form) are refused by the boot-worker, naming both.
 */
import { createHash } from 'node:crypto';

/** A DNS-1035 label: what a Service's name must be (and a pod's, a fortiori). */
export const DNS_1035_LABEL = /^(?=.{1,63}$)[a-z]([-a-z0-9]*[a-z0-9])?$/;

const HASH_DIGITS = 8;
/** 63 − `-` − the hash. */
const BASE_MAX = 63 - 1 - HASH_DIGITS;

export function podNameOf(processName: string): string {
  if (DNS_1035_LABEL.test(processName)) return processName;
  const hash = createHash('sha256').update(processName, 'utf8').digest('hex');
  let base = processName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (!/^[a-z]/.test(base)) base = base ? `p-${base}` : 'p';
  base = base.slice(0, BASE_MAX).replace(/-+$/, '');
  return `${base}-${hash.slice(0, HASH_DIGITS)}`;
}
