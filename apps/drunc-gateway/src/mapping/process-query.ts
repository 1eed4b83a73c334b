/**
 * drunc's era-B ProcessQuery is kpm's: every selector given must match (AND), names are searched
 * unanchored (drunc's re.search, kpm's RE2), an empty string or list selects nothing in
 * particular. kpm runs RE2: a pattern RE2 refuses (lookaround, backreferences) is refused naming
 * `names[i]`.
 */
import type { Query } from '@kpm/client';
import type { ProcessQuery } from '../wire/drunc-messages';

export function kpmQuery(query: ProcessQuery | null | undefined): Query {
  if (!query) return {};
  const uuids = query.uuids.map((u) => u.uuid);
  return {
    ...(query.session ? { session: query.session } : {}),
    ...(query.user ? { user: query.user } : {}),
    ...(query.names.length > 0 ? { names: [...query.names] } : {}),
    ...(uuids.length > 0 ? { uuids } : {}),
  };
}

export function isEmptyQuery(query: Query): boolean {
  return !query.session && !query.user && !query.names?.length && !query.uuids?.length;
}
