import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { NotificationTriggerVariableDto } from '../../common/dto/notification-trigger-variable.dto';
import { STEP_TYPES, type StepType } from '../../common/enums';
import { ActivityNotificationJobResponseDto } from './activity-notification-job.dto';

/** Severity levels of a workflow (`SeverityLevelEnum`). */
export const SEVERITY_LEVELS = ['high', 'medium', 'low', 'none'] as const;
/** Where a workflow was made (`ResourceOriginEnum`). */
export const RESOURCE_ORIGINS = ['novu-cloud', 'novu-cloud-v1', 'external'] as const;

/** The recipient of a notification; fields the subscriber has not set are omitted. @publicApi */
export class ActivityNotificationSubscriberResponseDto {
  @ApiPropertyOptional({ type: String })
  readonly firstName?: string;

  @ApiProperty({ type: String, description: 'The caller\'s identifier of the subscriber.' })
  readonly subscriberId!: string;

  @ApiProperty({ type: String, description: 'Our id of the subscriber.' })
  readonly _id!: string;

  @ApiPropertyOptional({ type: String })
  readonly lastName?: string;

  @ApiPropertyOptional({ type: String })
  readonly email?: string;

  @ApiPropertyOptional({ type: String })
  readonly phone?: string;
}

/** How a workflow is triggered (`NotificationTriggerDto`). @publicApi */
export class NotificationTriggerDto {
  @ApiProperty({ type: String, enum: ['event'], description: 'Always `event`.' })
  readonly type!: 'event';

  @ApiProperty({ type: String, description: 'The identifier events name to trigger the workflow.' })
  readonly identifier!: string;

  @ApiProperty({ type: [NotificationTriggerVariableDto], description: 'Payload variables of the trigger.' })
  readonly variables!: NotificationTriggerVariableDto[];

  @ApiPropertyOptional({ type: [NotificationTriggerVariableDto], description: 'Subscriber variables of the trigger.' })
  readonly subscriberVariables?: NotificationTriggerVariableDto[];
}

/** The workflow a notification ran. @publicApi */
export class ActivityNotificationTemplateResponseDto {
  @ApiPropertyOptional({ type: String, description: 'Id of the workflow.' })
  readonly _id?: string;

  @ApiProperty({ type: String, description: 'Name of the workflow.' })
  readonly name!: string;

  @ApiPropertyOptional({ enum: RESOURCE_ORIGINS, enumName: 'ResourceOriginEnum', description: 'Where the workflow was made.' })
  readonly origin?: (typeof RESOURCE_ORIGINS)[number];

  @ApiProperty({ type: [NotificationTriggerDto], description: 'How the workflow is triggered.' })
  readonly triggers!: NotificationTriggerDto[];
}

/** A topic a notification was sent to (`ActivityTopicDto`). @publicApi */
export class ActivityTopicDto {
  @ApiProperty({ type: String, description: 'Our id of the topic.' })
  readonly _topicId!: string;

  @ApiProperty({ type: String, description: 'The caller\'s key of the topic.' })
  readonly topicKey!: string;
}

/**
 * One run of a workflow for one subscriber, with its jobs and their execution logs
 * (`ActivityNotificationResponseDto`). The synthetic trigger job is not listed.
 * @publicApi
 */
export class ActivityNotificationResponseDto {
  @ApiPropertyOptional({ type: String, description: 'Id of the notification.' })
  readonly _id?: string;

  @ApiProperty({ type: String })
  readonly _environmentId!: string;

  @ApiProperty({ type: String })
  readonly _organizationId!: string;

  @ApiProperty({ type: String, description: 'Our id of the subscriber.' })
  readonly _subscriberId!: string;

  @ApiProperty({ type: String, description: 'The transaction id of the trigger.' })
  readonly transactionId!: string;

  @ApiPropertyOptional({ type: String, description: 'Id of the workflow.' })
  readonly _templateId?: string;

  @ApiPropertyOptional({ type: String, description: 'The notification a digest merged this one into.' })
  readonly _digestedNotificationId?: string;

  @ApiPropertyOptional({ type: String, description: 'ISO-8601.' })
  readonly createdAt?: string;

  @ApiPropertyOptional({ type: String, description: 'ISO-8601.' })
  readonly updatedAt?: string;

  @ApiPropertyOptional({ enum: STEP_TYPES, enumName: 'StepTypeEnum', isArray: true, description: 'Step types of the run.' })
  readonly channels?: StepType[];

  @ApiPropertyOptional({ type: ActivityNotificationSubscriberResponseDto, description: 'Omitted when the subscriber no longer exists.' })
  readonly subscriber?: ActivityNotificationSubscriberResponseDto;

  @ApiPropertyOptional({ type: ActivityNotificationTemplateResponseDto, description: 'Omitted when the workflow no longer exists.' })
  readonly template?: ActivityNotificationTemplateResponseDto;

  @ApiPropertyOptional({ type: [ActivityNotificationJobResponseDto], description: 'The jobs of the run, oldest first.' })
  readonly jobs?: ActivityNotificationJobResponseDto[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Payload of the event.' })
  readonly payload?: Record<string, unknown>;

  @ApiPropertyOptional({ type: [String], description: 'Tags of the workflow.' })
  readonly tags?: string[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Step controls of the run.' })
  readonly controls?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'The recipient as the trigger gave it.' })
  readonly to?: Record<string, unknown>;

  @ApiPropertyOptional({ type: [ActivityTopicDto], description: 'Topics the event was sent to.' })
  readonly topics?: ActivityTopicDto[];

  @ApiPropertyOptional({ enum: SEVERITY_LEVELS, enumName: 'SeverityLevelEnum', description: 'Severity of the workflow.' })
  readonly severity?: (typeof SEVERITY_LEVELS)[number];

  @ApiPropertyOptional({ type: Boolean, description: 'Whether the workflow is critical (ignores preferences).' })
  readonly critical?: boolean;

  @ApiPropertyOptional({ type: [String], description: 'Contexts the event was sent in, as `type:id`.' })
  readonly contextKeys?: string[];
}
