/**
 * ps in pages (docs/design.md §6.6): a page holds at most `limit` processes after the cursor,
 * in the table's order (session, name, uuid), so a client pages through any number of
 * processes with records that stay small. The cursor is the sort key of the last process
 * given, so a page never repeats or skips a process that was there on both pages.
 */
import { LIMITS, type ProcessInstance } from '@kpm/contracts';
import { compareSortKeys, sortKeyOf } from './process-table';

interface PsPage {
  processes: ProcessInstance[];
  /** More processes follow the page. */
  more: boolean;
}

/** The page of `sorted` (in `byName` order) after `cursor`, at most `limit` long. */
export function psPage(
  sorted: readonly ProcessInstance[],
  cursor: string | undefined,
  limit: number = LIMITS.defaultPsLimit,
): PsPage {
  const start = cursor === undefined ? 0 : firstAfter(sorted, cursorKey(cursor));
  const processes = sorted.slice(start, start + limit);
  return { processes, more: start + limit < sorted.length };
}

/**
 * A cursor's sort key (completion-record.ts's `cursorOf` writes it): the session ends at the
 * first "/" (a DNS label has none), the uuid is the last 36 characters, the name (drunc's,
 * which may hold "/") is what lies between.
 */
function cursorKey(cursor: string): string[] {
  const session = cursor.slice(0, cursor.indexOf('/'));
  return [session, cursor.slice(session.length + 1, -37), cursor.slice(-36)];
}

/** Binary search: the index of the first process sorted after `key`. */
function firstAfter(sorted: readonly ProcessInstance[], key: readonly string[]): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (compareSortKeys(sortKeyOf(sorted[middle]), key) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
