/**
 * drunc's ProcessQuery against the process table: every selector given must match (AND); names
 * are regexes matched unanchored like Python's `re.search`. The contract has already refused
 * dangerous patterns, so compiling them here is safe.
 */
import type { ProcessInstance, ProcessQuery } from '@kpm/contracts';

export type ProcessMatcher = (instance: ProcessInstance) => boolean;

export function isEmptyQuery(query: ProcessQuery): boolean {
  return (
    query.session === undefined &&
    query.user === undefined &&
    (query.uuids === undefined || query.uuids.length === 0) &&
    (query.names === undefined || query.names.length === 0)
  );
}

/** A matcher for `query`; an empty query matches every process (ps and flush read it as "all"). */
export function processMatcher(query: ProcessQuery): ProcessMatcher {
  const uuids = query.uuids && query.uuids.length > 0 ? new Set(query.uuids) : undefined;
  const names = query.names && query.names.length > 0 ? query.names.map(compile) : undefined;
  return (instance) => {
    const { metadata } = instance.description;
    if (query.session !== undefined && metadata.session !== query.session) return false;
    if (query.user !== undefined && metadata.user !== query.user) return false;
    if (uuids && !uuids.has(instance.uuid)) return false;
    if (names && !names.some((re) => re !== undefined && re.test(metadata.name))) return false;
    return true;
  };
}

function compile(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern);
  } catch {
    return undefined; // an invalid pattern matches nothing rather than failing the whole query
  }
}
