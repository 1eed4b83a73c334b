/** The dashboard API's inputs, validated like the rest of the state API (errors name the field). */
import { IsInt, IsOptional, IsString, IsUUID, Matches, Max, Min } from 'class-validator';
import { Type } from 'class-transformer';
import { LIMITS } from '@kpm/contracts';
import { IsDnsLabel } from '@kpm/contracts/validation/rules';

/** `GET /v1/dashboard/stream?after` */
export class DashboardStreamQuery {
  /** The snapshot's cursor; a reconnecting browser sends `Last-Event-ID` instead. */
  @IsOptional()
  @IsString()
  @Matches(/^[0-9a-f]{1,32}\.\d{1,15}$/, { message: 'must be a cursor <epoch>.<sequence>' })
  after?: string;
}

/** `POST /v1/dashboard/logs` */
export class LogsRequest {
  @IsDnsLabel()
  session!: string;

  @IsUUID('all', { message: 'must be a UUID' })
  uuid!: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'must be a whole number of lines' })
  @Min(1, { message: 'must be at least 1' })
  @Max(LIMITS.maxTailLines, { message: `must be at most ${LIMITS.maxTailLines}` })
  tailLines?: number;
}
