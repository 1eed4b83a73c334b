/**
 * A record some consumer could not parse as a CloudEvent, on `kpm.dead-letters` (docs/design.md
 * §3.3). It keeps everything needed to inspect or replay it: where it came from and its raw bytes.
 * The dead-letter record's key is the original key, so replays keep their partition.
 */
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsArray,
  IsBase64,
  IsBoolean,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Min,
  ValidateNested,
} from 'class-validator';
import { FieldErrorDetail } from '../facts/process-events';
import { IsStringMap } from '../validation/rules';

/** At most this much of a dead-lettered value is kept (64 KiB): enough to see what it was. */
export const DEAD_LETTER_VALUE_BYTES = 64 * 1024;

export class DeadLetterSource {
  @IsString()
  @IsNotEmpty()
  topic!: string;

  @IsInt()
  @Min(0)
  partition!: number;

  /** Kafka offsets are 64-bit: a decimal string, as kafkajs gives it. */
  @Matches(/^\d+$/, { message: 'must be a decimal offset' })
  offset!: string;
}

export class DeadLetter {
  /** Why it was dead-lettered, e.g. `not JSON: Unexpected token`. */
  @IsString()
  @IsNotEmpty()
  reason!: string;

  @IsDefined({ message: 'is required' })
  @ValidateNested()
  @Type(() => DeadLetterSource)
  source!: DeadLetterSource;

  /** The consumer group that gave up on it. */
  @IsOptional()
  @IsString()
  consumerGroup?: string;

  /** The original key as UTF-8, absent for a record without key. */
  @IsOptional()
  @IsString()
  key?: string;

  /**
   * The original value's first {@link DEAD_LETTER_VALUE_BYTES} bytes (all of it when shorter);
   * absent for a tombstone. A dead letter must fit its topic whatever it carries.
   */
  @IsOptional()
  @IsBase64()
  valueBase64?: string;

  /** The original value's length in bytes. */
  @IsOptional()
  @IsInt()
  @Min(0)
  valueBytes?: number;

  /** The original value's SHA-256 (hex), to recognise it when only its start is kept. */
  @IsOptional()
  @Matches(/^[0-9a-f]{64}$/, { message: 'must be a hex SHA-256' })
  valueSha256?: string;

  /** True when `valueBase64` holds only the start of the value. */
  @IsOptional()
  @IsBoolean()
  valueTruncated?: boolean;

  /** The original headers as UTF-8 strings. */
  @IsOptional()
  @IsStringMap('isHeaderMap')
  headers?: Record<string, string>;

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => FieldErrorDetail)
  errors?: FieldErrorDetail[];
}
