/**
 * drunc's ProcessQuery: every selector given must match (AND). An empty query is valid here;
 * how a query selects is `processQueryMatcher`'s (process-query-match.ts): an empty one matches
 * everything, which ps and flush use and kill, restart and logs refuse.
 */
import { ArrayMaxSize, IsArray, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { MAX_REGEX_LENGTH, unsafeRegexReason } from '../validation/safe-regex';
import { IsDnsLabel, IsUserName } from '../validation/rules';
import type { FieldError } from '../validation/validate';
import { LIMITS } from './limits';

export class ProcessQuery {
  @IsOptional()
  @IsDnsLabel()
  session?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(LIMITS.maxQueryUuids)
  @IsUUID('all', { each: true, message: 'each uuid must be a UUID' })
  uuids?: string[];

  /** Regexes matched unanchored against process names, like drunc's `re.search`. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(LIMITS.maxQueryNames)
  @IsString({ each: true })
  @MaxLength(MAX_REGEX_LENGTH, { each: true })
  names?: string[];

  @IsOptional()
  @IsUserName()
  user?: string;

  /** A dangerous pattern is refused before anything runs it; the error names its index. */
  static crossCheck(query: ProcessQuery): FieldError[] {
    if (!Array.isArray(query.names)) return [];
    return query.names.flatMap((pattern: unknown, i) => {
      if (typeof pattern !== 'string' || pattern.length > MAX_REGEX_LENGTH) return []; // reported above
      const reason = unsafeRegexReason(pattern);
      return reason
        ? [
            {
              path: `names[${i}]`,
              message: `regular expression ${JSON.stringify(pattern)} ${reason}`,
            },
          ]
        : [];
    });
  }
}
