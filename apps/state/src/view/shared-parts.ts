/**
 * A replica holds a process twice when it owns the session: its shard's row (fresh, for the
 * decisions) and the view's (every session's committed table, for `ps` and the dashboard). The
 * command line, environment and hosts (`description`, `restriction`) are most of a row's bytes and
 * never change for a uuid; when both rows carry the same, the view keeps the shard's objects
 * instead of a copy of its own (docs/design.md §6.6, "Bounded memory"). Rows are never changed in place (they are
 * replaced), so sharing is safe; what differs is kept as it is.
 */
import type { ProcessInstance } from '@kpm/contracts';

/** The instance this replica's shard holds for `uuid`, when it owns the session. */
export type OwnedInstance = (uuid: string) => ProcessInstance | undefined;

/** `row` holding `own`'s description and restriction where they are equal, else `row` itself. */
export function withSharedParts(
  row: ProcessInstance,
  own: ProcessInstance | undefined,
): ProcessInstance {
  if (!own || own === row) return row;
  const description =
    row.description === own.description || sameData(row.description, own.description)
      ? own.description
      : row.description;
  const restriction =
    row.restriction === own.restriction || sameData(row.restriction, own.restriction)
      ? own.restriction
      : row.restriction;
  if (description === row.description && restriction === row.restriction) return row;
  return { ...row, description, restriction };
}

/**
 * Equal as data, as their records would read: the classes a parse makes and plain objects alike,
 * a key holding `undefined` as if absent (JSON drops it).
 */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameData(item, other[i]));
  }
  const left = definedKeys(a);
  const right = definedKeys(b);
  if (left.length !== right.length) return false;
  const values = b as Record<string, unknown>;
  return left.every((key) => sameData((a as Record<string, unknown>)[key], values[key]));
}

function definedKeys(value: object): string[] {
  return Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined);
}
