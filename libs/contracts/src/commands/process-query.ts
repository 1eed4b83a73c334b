/**
 * drunc's ProcessQuery: every selector given must match (AND). An empty query is valid here;
 * how a query selects is `processQueryMatcher`'s (process-query-match.ts): an empty one matches
 * everything, which ps and flush use and kill, restart and logs refuse.
 */
import { ArrayMaxSize, IsArray, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { MAX_REGEX_LENGTH, namePatternError } from '../validation/name-pattern';
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

  /** RE2 patterns searched anywhere in process names, like drunc's `re.search` (name-pattern.ts). */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(LIMITS.maxQueryNames)
  @IsString({ each: true })
  @MaxLength(MAX_REGEX_LENGTH, { each: true })
  names?: string[];

  @IsOptional()
  @IsUserName()
  user?: string;

  /** A pattern the linear-time engine cannot run is refused; the error names its index. */
  static crossCheck(query: ProcessQuery): FieldError[] {
    if (!Array.isArray(query.names)) return [];
    return query.names.flatMap((pattern: unknown, i) => {
      if (typeof pattern !== 'string' || pattern.length > MAX_REGEX_LENGTH) return []; // reported above
      const reason = namePatternError(pattern);
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
