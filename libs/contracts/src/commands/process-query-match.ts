/**
 * How a ProcessQuery selects processes, for every service that resolves one: each selector given
 * must match (AND); `names` are regular expressions searched anywhere in the name, like drunc's
 * `re.search`, and any one of them may match. A selector is "given" when it is present and not
 * empty: `null` (which JSON producers may send for an optional field) and `[]` mean absent.
 *
 * An empty query is the identity of AND: it matches every process. What that means is the
 * command's decision, not the matcher's: `ps` and `flush` read it as "all", while `kill`,
 * `restart` and `logs` refuse it before matching (the boot-worker's EMPTY_QUERY error).
 */
import { compileNamePattern, type NamePattern } from '../validation/name-pattern';
import type { ProcessQuery } from './process-query';

/** What a query selects on, whichever service holds the process (a pod, a table row). */
export interface QueriedProcess {
  uuid: string;
  name: string;
  session: string;
  user?: string;
}

export type ProcessQueryMatcher = (process: QueriedProcess) => boolean;

const givenText = (value: string | null | undefined): value is string =>
  value !== undefined && value !== null;
const givenList = (list: string[] | null | undefined): list is string[] =>
  Array.isArray(list) && list.length > 0;

/** No selector at all. */
export function isEmptyProcessQuery(query: ProcessQuery): boolean {
  return (
    !givenText(query.session) &&
    !givenText(query.user) &&
    !givenList(query.uuids) &&
    !givenList(query.names)
  );
}

/**
 * The matcher of `query`, its patterns compiled once on the linear-time engine. The contract
 * refuses a pattern that does not compile when the command is parsed, so one that still fails
 * here is a caller that skipped validation: that throws, naming the pattern, rather than
 * silently selecting nothing.
 */
export function processQueryMatcher(query: ProcessQuery): ProcessQueryMatcher {
  const { session, user } = query;
  const uuids = givenList(query.uuids) ? new Set(query.uuids) : undefined;
  const names = givenList(query.names) ? query.names.map(compileName) : undefined;
  return (process) =>
    (!givenText(session) || process.session === session) &&
    (!givenText(user) || process.user === user) &&
    (uuids === undefined || uuids.has(process.uuid)) &&
    (names === undefined || names.some((pattern) => pattern.test(process.name)));
}

function compileName(pattern: string, index: number): NamePattern {
  const compiled = compileNamePattern(pattern);
  if (compiled.ok) return compiled.pattern;
  throw new Error(
    `ProcessQuery names[${index}]: regular expression ${JSON.stringify(pattern)} ${compiled.reason}; queries are matched only after validation`,
  );
}
