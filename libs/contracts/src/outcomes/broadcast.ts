/**
 * drunc's broadcast model on `kpm.broadcast` (docs/design.md §5.4): human-readable text for
 * dashboards and operators, with drunc's BroadcastType names so drunc's tooling reads kpm's
 * messages.
 */
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  ValidateNested,
} from 'class-validator';
import { BROADCAST_TYPES, type BroadcastType } from '../event-types';

/** Who said it: the service, its instance (host/pid or pod), and the session if any. */
export class BroadcastEmitter {
  @IsString()
  @IsNotEmpty()
  service!: string;

  @IsString()
  @IsNotEmpty()
  instance!: string;

  /** Absent for service-wide messages such as SERVER_READY. */
  @IsOptional()
  @IsString()
  session?: string;
}

export class Broadcast {
  @IsDefined({ message: 'is required' })
  @ValidateNested()
  @Type(() => BroadcastEmitter)
  emitter!: BroadcastEmitter;

  @IsIn(BROADCAST_TYPES)
  broadcastType!: BroadcastType;

  @IsString()
  text!: string;

  /** Structured details for machines (e.g. the termination record); free-form. */
  @IsOptional()
  @IsObject()
  data?: Record<string, unknown>;
}

/** The termination facts drunc's text names. */
export interface TerminationText {
  name: string;
  session: string;
  user: string;
  uuid: string;
  exitCode: number;
  reason: string;
}

/** drunc's exact broadcast texts, so operators see the same lines as with drunc. */
export const broadcastText = {
  /** `Pod '<name>' (session: '<session>', user: '<user>', uuid: <uuid>) terminated with exit code <n>. Reason: <reason>` */
  termination: (t: TerminationText): string =>
    `Pod '${t.name}' (session: '${t.session}', user: '${t.user}', uuid: ${t.uuid}) ` +
    `terminated with exit code ${t.exitCode}. Reason: ${t.reason}`,
  /**
   * `'<exception class>' exception thrown: <message>`: drunc's DRUNC_EXCEPTION_RAISED (a command
   * that failed, drunc's own exceptions) and UNHANDLED_EXCEPTION_RAISED (an unexpected error).
   */
  exception: (exceptionClass: string, message: string): string =>
    `'${exceptionClass}' exception thrown: ${message}`,
};
