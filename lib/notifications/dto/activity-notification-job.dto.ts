import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { StepFilterDto } from '../../common/dto/step-filter.dto';
import {
  EXECUTION_DETAIL_SOURCES,
  EXECUTION_DETAIL_STATUSES,
  type ExecutionDetailSource,
  type ExecutionDetailStatus,
  PROVIDER_IDS,
  type ProviderId,
  STEP_TYPES,
  type StepType,
} from '../../common/enums';
import { DigestMetadataDto } from './digest-metadata.dto';

/** One line of a job's execution log. @publicApi */
export class ActivityNotificationExecutionDetailResponseDto {
  @ApiProperty({ type: String, description: 'Id of the execution detail.' })
  readonly _id!: string;

  @ApiPropertyOptional({ type: String, description: 'When the line was written (ISO-8601).' })
  readonly createdAt?: string;

  @ApiProperty({ enum: EXECUTION_DETAIL_STATUSES, enumName: 'ExecutionDetailsStatusEnum', description: 'Outcome of the step at this point.' })
  readonly status!: ExecutionDetailStatus;

  @ApiProperty({ type: String, description: 'What happened, e.g. `Message sent`.' })
  readonly detail!: string;

  @ApiProperty({ type: Boolean, description: 'Whether the line was written by a retry.' })
  readonly isRetry!: boolean;

  @ApiProperty({ type: Boolean, description: 'Whether the line belongs to a test run.' })
  readonly isTest!: boolean;

  @ApiPropertyOptional({ enum: PROVIDER_IDS, enumName: 'ProvidersIdEnum', description: 'The provider involved, when there is one.' })
  readonly providerId?: ProviderId;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Context of the line as a JSON string (provider response, delay, ...).' })
  readonly raw?: string | null;

  @ApiProperty({ enum: EXECUTION_DETAIL_SOURCES, enumName: 'ExecutionDetailsSourceEnum', description: 'Where the line comes from.' })
  readonly source!: ExecutionDetailSource;
}

/**
 * The message template of a step (`MessageTemplateDto`). The contract leaves it open; these are the
 * fields a step of this module renders.
 * @publicApi
 */
export class MessageTemplateDto {
  @ApiPropertyOptional({ enum: STEP_TYPES, type: String, description: 'The step type the template renders for.' })
  readonly type?: StepType;

  @ApiPropertyOptional({ type: String, description: 'Subject (email) or title (push, in-app).' })
  readonly subject?: string;

  @ApiPropertyOptional({ type: String, description: 'Title (push, in-app).' })
  readonly title?: string;

  @ApiPropertyOptional({ type: String, description: 'Body of the message (a Liquid template).' })
  readonly content?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Call to action (in-app).' })
  readonly cta?: Record<string, unknown>;
}

/** The step a job runs: a snapshot of the workflow step taken when the event was triggered. @publicApi */
export class ActivityNotificationStepResponseDto {
  @ApiProperty({ type: String, description: 'Id of the step in its workflow.' })
  readonly _id!: string;

  @ApiProperty({ type: Boolean, description: 'Whether the step is active.' })
  readonly active!: boolean;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Reply callback settings.' })
  readonly replyCallback?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Control variables.' })
  readonly controlVariables?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Digest, delay or throttle settings.' })
  readonly metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Step issues.' })
  readonly issues?: Record<string, unknown>;

  @ApiProperty({ type: [StepFilterDto], description: 'Conditions the step runs under.' })
  readonly filters!: StepFilterDto[];

  @ApiPropertyOptional({ type: MessageTemplateDto, description: 'The message the step renders.' })
  readonly template?: MessageTemplateDto;

  @ApiPropertyOptional({ type: () => [ActivityNotificationStepResponseDto], description: 'Variants of the step.' })
  readonly variants?: ActivityNotificationStepResponseDto[];

  @ApiProperty({ type: String, description: 'Id of the step\'s message template.' })
  readonly _templateId!: string;

  @ApiPropertyOptional({ type: String, description: 'Name of the step.' })
  readonly name?: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Id of the step before this one; null for the first step.' })
  readonly _parentId?: string | null;
}

/** One step of one notification run, with its execution log. @publicApi */
export class ActivityNotificationJobResponseDto {
  @ApiProperty({ type: String, description: 'Id of the job.' })
  readonly _id!: string;

  @ApiProperty({ enum: STEP_TYPES, type: String, description: 'The step type.' })
  readonly type!: StepType;

  @ApiPropertyOptional({ type: DigestMetadataDto, description: 'Digest settings and collected events (digest jobs only).' })
  readonly digest?: DigestMetadataDto;

  @ApiProperty({ type: [ActivityNotificationExecutionDetailResponseDto], description: 'The execution log, oldest first.' })
  readonly executionDetails!: ActivityNotificationExecutionDetailResponseDto[];

  @ApiProperty({ type: ActivityNotificationStepResponseDto, description: 'The step the job runs.' })
  readonly step!: ActivityNotificationStepResponseDto;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Overrides given with the event.' })
  readonly overrides?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Payload of the event.' })
  readonly payload?: Record<string, unknown>;

  @ApiProperty({
    enum: PROVIDER_IDS,
    enumName: 'ProvidersIdEnum',
    description: 'The provider the job delivers through; `novu` for in-app and for steps that send nothing.',
  })
  readonly providerId!: ProviderId;

  @ApiProperty({ type: String, description: 'Job state: pending, queued, running, completed, failed, delayed, canceled, merged or skipped.' })
  readonly status!: string;

  @ApiPropertyOptional({ type: String, description: 'When the job last changed (ISO-8601).' })
  readonly updatedAt?: string;

  @ApiPropertyOptional({ type: Number, description: 'How many times a digest or delay was extended to fit the subscriber\'s schedule.' })
  readonly scheduleExtensionsCount?: number;
}
