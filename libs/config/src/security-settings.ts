/**
 * Who may act on which session. A command acts only on sessions its user owns; the users listed
 * in `operatorUsers` (shift leaders, run control) may act on any session.
 */
import 'reflect-metadata';
import { IsArray } from 'class-validator';
import { IsUserName } from '@kpm/contracts/validation/rules';

export class SecurityConfig {
  /** Users who may kill, restart, read logs of, flush and terminate any session (not boot into another's). */
  @IsArray()
  @IsUserName({ each: true, message: 'each operator must be a user name' })
  operatorUsers: string[] = [];
}

export const SECURITY_ENV: ReadonlyArray<[string, string, (raw: string) => unknown]> = [
  [
    'KPM_OPERATOR_USERS',
    'security.operatorUsers',
    (raw) =>
      raw
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean),
  ],
];
