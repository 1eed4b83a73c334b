/**
 * The query parameters of the state API, validated like commands are: a bad one is a 400 whose
 * errors name the parameter (`status: must be RUNNING or DEAD`), an unknown one too.
 */
import { BadRequestException, ValidationPipe } from '@nestjs/common';
import {
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  ValidateBy,
  type ValidationError,
} from 'class-validator';
import {
  MAX_REGEX_LENGTH,
  PROCESS_STATUSES,
  toFieldErrors,
  namePatternError,
  type ProcessStatus,
} from '@kpm/contracts';
import { IsDnsLabel, IsUserName } from '@kpm/contracts/validation/rules';

/** A name pattern the linear-time engine can run, as in a command's ProcessQuery. */
function IsNamePattern(): PropertyDecorator {
  return ValidateBy({
    name: 'isNamePattern',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'string' && namePatternError(value) === undefined,
      defaultMessage: (args) =>
        `regular expression ${JSON.stringify(args?.value)} ${namePatternError(String(args?.value))}`,
    },
  });
}

/** `GET /v1/processes?session&user&name&uuid&status` */
export class ProcessesQuery {
  @IsOptional()
  @IsDnsLabel()
  session?: string;

  @IsOptional()
  @IsUserName()
  user?: string;

  /** An RE2 pattern searched in the name, like drunc's `re.search`. */
  @IsOptional()
  @IsString()
  @MaxLength(MAX_REGEX_LENGTH)
  @IsNamePattern()
  name?: string;

  @IsOptional()
  @IsUUID('all', { message: 'must be a UUID' })
  uuid?: string;

  @IsOptional()
  @IsIn(PROCESS_STATUSES, { message: `must be ${PROCESS_STATUSES.join(' or ')}` })
  status?: ProcessStatus;
}

/** `GET /v1/events?session` */
export class EventsQuery {
  @IsOptional()
  @IsDnsLabel()
  session?: string;
}

/** `GET /v1/commands/:id` */
export class CommandParams {
  @IsString()
  @MaxLength(256)
  id!: string;
}

/**
 * A pipe for one DTO. The type is given explicitly: services run under tsx, which emits no
 * decorator metadata for Nest to find it by.
 */
export function validated(expectedType: new () => object): ValidationPipe {
  return new ValidationPipe({
    expectedType,
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    exceptionFactory: (errors: ValidationError[]) => {
      const fields = toFieldErrors(errors);
      return new BadRequestException({
        statusCode: 400,
        error: 'Bad Request',
        message: fields.map((f) => `${f.path}: ${f.message}`),
        errors: fields,
      });
    },
  });
}
