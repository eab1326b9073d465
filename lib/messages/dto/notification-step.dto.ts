import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { StepFilterDto } from '../../common/dto/step-filter.dto';
import { MONTHLY_TYPES, ORDINAL_VALUES, ORDINALS, TIME_UNITS, type TimeUnit, WEEK_DAYS } from '../../common/enums';

// The workflow-shaped DTOs below exist so that the OpenAPI document declares `MessageResponseDto.template`
// exactly as the contract does. The API never sends `template` (its required fields would force a workflow
// lookup per message, and the SDK rejects a partial one), but clients generated from our document must
// still see the same tree as clients generated from the contract.

/** The calendar of a timed digest (`TimedConfig`). @publicApi */
@ApiSchema({ name: 'TimedConfig' })
export class TimedConfigDto {
  @ApiPropertyOptional({ type: String, description: 'Time of day, `HH:mm`.' })
  readonly atTime?: string;

  @ApiPropertyOptional({ type: 'array', items: { type: 'string', enum: [...WEEK_DAYS] } })
  readonly weekDays?: (typeof WEEK_DAYS)[number][];

  @ApiPropertyOptional({ type: [String] })
  readonly monthDays?: string[];

  @ApiPropertyOptional({ enum: ORDINALS, type: String })
  readonly ordinal?: (typeof ORDINALS)[number];

  @ApiPropertyOptional({ enum: ORDINAL_VALUES, type: String })
  readonly ordinalValue?: (typeof ORDINAL_VALUES)[number];

  @ApiPropertyOptional({ enum: MONTHLY_TYPES, type: String })
  readonly monthlyType?: (typeof MONTHLY_TYPES)[number];
}

/** A regular or backoff digest (`DigestRegularMetadata`). @publicApi */
@ApiSchema({ name: 'DigestRegularMetadata' })
export class DigestRegularMetadataDto {
  @ApiPropertyOptional({ type: Number })
  readonly amount?: number;

  @ApiPropertyOptional({ enum: TIME_UNITS, type: String })
  readonly unit?: TimeUnit;

  @ApiPropertyOptional({ type: String, description: 'Payload path whose value groups the digested events.' })
  readonly digestKey?: string;

  @ApiProperty({ enum: ['regular', 'backoff'], type: String })
  readonly type!: 'regular' | 'backoff';

  @ApiPropertyOptional({ type: Boolean })
  readonly backoff?: boolean;

  @ApiPropertyOptional({ type: Number })
  readonly backoffAmount?: number;

  @ApiPropertyOptional({ enum: TIME_UNITS, type: String })
  readonly backoffUnit?: TimeUnit;

  @ApiPropertyOptional({ type: Boolean })
  readonly updateMode?: boolean;
}

/** A digest that fires on a calendar (`DigestTimedMetadata`). @publicApi */
@ApiSchema({ name: 'DigestTimedMetadata' })
export class DigestTimedMetadataDto {
  @ApiPropertyOptional({ type: Number })
  readonly amount?: number;

  @ApiPropertyOptional({ enum: TIME_UNITS, type: String })
  readonly unit?: TimeUnit;

  @ApiPropertyOptional({ type: String })
  readonly digestKey?: string;

  @ApiProperty({ enum: ['timed'], type: String })
  readonly type!: 'timed';

  @ApiPropertyOptional({ type: TimedConfigDto })
  readonly timed?: TimedConfigDto;
}

/** A fixed delay (`DelayRegularMetadata`). @publicApi */
@ApiSchema({ name: 'DelayRegularMetadata' })
export class DelayRegularMetadataDto {
  @ApiPropertyOptional({ type: Number })
  readonly amount?: number;

  @ApiPropertyOptional({ enum: TIME_UNITS, type: String })
  readonly unit?: TimeUnit;

  @ApiProperty({ enum: ['regular'], type: String })
  readonly type!: 'regular';
}

/** A delay until a date read from the payload (`DelayScheduledMetadata`). @publicApi */
@ApiSchema({ name: 'DelayScheduledMetadata' })
export class DelayScheduledMetadataDto {
  @ApiProperty({ enum: ['scheduled'], type: String })
  readonly type!: 'scheduled';

  @ApiProperty({ type: String, description: 'Payload path of the date to wait for.' })
  readonly delayPath!: string;
}

/** Where replies to a message are posted (`ReplyCallback`). @publicApi */
@ApiSchema({ name: 'ReplyCallback' })
export class ReplyCallbackDto {
  @ApiPropertyOptional({ type: Boolean })
  readonly active?: boolean;

  @ApiPropertyOptional({ type: String })
  readonly url?: string;
}

/** The message template of a step; the contract declares no field of it (`MessageTemplate`). @publicApi */
@ApiSchema({ name: 'MessageTemplate' })
export class StepMessageTemplateDto {}

/** Any of the four metadata shapes a digest or delay step carries. */
export type StepMetadataDto = DigestRegularMetadataDto | DigestTimedMetadataDto | DelayRegularMetadataDto | DelayScheduledMetadataDto;

/** One step of a workflow, without variants (`NotificationStepData`). @publicApi */
@ApiSchema({ name: 'NotificationStepData' })
@ApiExtraModels(DigestRegularMetadataDto, DigestTimedMetadataDto, DelayRegularMetadataDto, DelayScheduledMetadataDto)
export class NotificationStepDataDto {
  @ApiPropertyOptional({ type: String, description: 'Unique identifier for the notification step.' })
  readonly _id?: string;

  @ApiPropertyOptional({ type: String, description: 'Universally unique identifier for the notification step.' })
  readonly uuid?: string;

  @ApiPropertyOptional({ type: String, description: 'Name of the notification step.' })
  readonly name?: string;

  @ApiPropertyOptional({ type: String, description: 'ID of the template associated with this notification step.' })
  readonly _templateId?: string;

  @ApiPropertyOptional({ type: Boolean, description: 'Indicates whether the notification step is active.' })
  readonly active?: boolean;

  @ApiPropertyOptional({ type: Boolean, description: 'Determines if the process should stop on failure.' })
  readonly shouldStopOnFail?: boolean;

  @ApiPropertyOptional({ type: StepMessageTemplateDto, description: 'Message template used in this notification step.' })
  readonly template?: StepMessageTemplateDto;

  @ApiPropertyOptional({ type: [StepFilterDto], description: 'Filters applied to this notification step.' })
  readonly filters?: StepFilterDto[];

  @ApiPropertyOptional({ type: String, description: 'ID of the parent notification step, if applicable.' })
  readonly _parentId?: string;

  @ApiPropertyOptional({
    description: 'Metadata associated with the workflow step. Can vary based on the type of step.',
    oneOf: [
      { $ref: getSchemaPath(DigestRegularMetadataDto) },
      { $ref: getSchemaPath(DigestTimedMetadataDto) },
      { $ref: getSchemaPath(DelayRegularMetadataDto) },
      { $ref: getSchemaPath(DelayScheduledMetadataDto) },
    ],
  })
  readonly metadata?: StepMetadataDto;

  @ApiPropertyOptional({ type: ReplyCallbackDto, description: 'Callback information for replies.' })
  readonly replyCallback?: ReplyCallbackDto;
}

/** One step of a workflow (`NotificationStepDto`). @publicApi */
export class NotificationStepDto extends NotificationStepDataDto {
  @ApiPropertyOptional({ type: [NotificationStepDataDto], description: 'Variants of the step, chosen by their filters.' })
  readonly variants?: NotificationStepDataDto[];
}
