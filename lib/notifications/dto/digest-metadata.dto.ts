import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DIGEST_TYPES, MONTHLY_TYPES, ORDINAL_VALUES, ORDINALS, TIME_UNITS, type TimeUnit, WEEK_DAYS } from '../../common/enums';

/** The schedule of a timed digest (`DigestTimedConfigDto`). @publicApi */
export class DigestTimedConfigDto {
  @ApiPropertyOptional({ type: String, description: 'Time of day the digest fires, `HH:mm`.' })
  readonly atTime?: string;

  @ApiPropertyOptional({ enum: WEEK_DAYS, type: String, isArray: true, description: 'Days of the week the digest fires on.' })
  readonly weekDays?: (typeof WEEK_DAYS)[number][];

  @ApiPropertyOptional({ type: [Number], description: 'Days of the month the digest fires on.' })
  readonly monthDays?: number[];

  @ApiPropertyOptional({ enum: ORDINALS, enumName: 'OrdinalEnum', description: 'Ordinal position in the month.' })
  readonly ordinal?: (typeof ORDINALS)[number];

  @ApiPropertyOptional({ enum: ORDINAL_VALUES, enumName: 'OrdinalValueEnum', description: 'What the ordinal counts.' })
  readonly ordinalValue?: (typeof ORDINAL_VALUES)[number];

  @ApiPropertyOptional({ enum: MONTHLY_TYPES, enumName: 'MonthlyTypeEnum', description: 'Type of monthly schedule.' })
  readonly monthlyType?: (typeof MONTHLY_TYPES)[number];

  @ApiPropertyOptional({ type: String, description: 'Cron expression of the schedule.' })
  readonly cronExpression?: string;

  @ApiPropertyOptional({ type: String, description: 'Date until which the schedule runs.' })
  readonly untilDate?: string;
}

/**
 * The digest of a digest job (`DigestMetadataDto`): its settings and the events it collected.
 * Present on a job only when the job carries real digest settings (type regular, backoff or timed).
 * @publicApi
 */
export class DigestMetadataDto {
  @ApiPropertyOptional({ type: String, description: 'Payload path whose value groups events into separate digests.' })
  readonly digestKey?: string;

  @ApiPropertyOptional({ type: Number, description: 'How long the digest collects events, with `unit`.' })
  readonly amount?: number;

  @ApiPropertyOptional({ enum: TIME_UNITS, type: String, description: 'Unit of `amount`.' })
  readonly unit?: TimeUnit;

  @ApiProperty({ enum: DIGEST_TYPES, enumName: 'DigestTypeEnum', description: 'The digest type.' })
  readonly type!: (typeof DIGEST_TYPES)[number];

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: 'Payloads of the events the digest collected.',
  })
  readonly events?: Record<string, unknown>[];

  @ApiPropertyOptional({ type: Boolean, description: 'Regular digest: whether backoff is enabled.' })
  readonly backoff?: boolean;

  @ApiPropertyOptional({ type: Number, description: 'Regular digest: backoff window, with `backoffUnit`.' })
  readonly backoffAmount?: number;

  @ApiPropertyOptional({ enum: TIME_UNITS, enumName: 'DigestUnitEnum', description: 'Regular digest: unit of `backoffAmount`.' })
  readonly backoffUnit?: TimeUnit;

  @ApiPropertyOptional({ type: Boolean, description: 'Regular digest: whether the digest updates in place.' })
  readonly updateMode?: boolean;

  @ApiPropertyOptional({ type: DigestTimedConfigDto, description: 'Timed digest: when it fires.' })
  readonly timed?: DigestTimedConfigDto;
}
