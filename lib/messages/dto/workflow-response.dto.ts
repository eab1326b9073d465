import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { NotificationTriggerVariableDto } from '../../common/dto/notification-trigger-variable.dto';
import { NotificationStepDto } from './notification-step.dto';

/** Channels a workflow may use (`SubscriberPreferenceChannels`). @publicApi */
@ApiSchema({ name: 'SubscriberPreferenceChannels' })
export class SubscriberPreferenceChannelsDto {
  @ApiPropertyOptional({ type: Boolean })
  readonly email?: boolean;

  @ApiPropertyOptional({ type: Boolean })
  readonly sms?: boolean;

  @ApiPropertyOptional({ type: Boolean })
  readonly in_app?: boolean;

  @ApiPropertyOptional({ type: Boolean })
  readonly chat?: boolean;

  @ApiPropertyOptional({ type: Boolean })
  readonly push?: boolean;
}

/** The event that starts a workflow (`NotificationTrigger`). @publicApi */
@ApiSchema({ name: 'NotificationTrigger' })
export class WorkflowTriggerDto {
  @ApiProperty({ enum: ['event'], type: String })
  readonly type!: 'event';

  @ApiProperty({ type: String, description: 'The name events are triggered with.' })
  readonly identifier!: string;

  @ApiProperty({ type: [NotificationTriggerVariableDto] })
  readonly variables!: NotificationTriggerVariableDto[];

  @ApiPropertyOptional({ type: [NotificationTriggerVariableDto] })
  readonly subscriberVariables?: NotificationTriggerVariableDto[];
}

/** A group of workflows (`NotificationGroup`). @publicApi */
@ApiSchema({ name: 'NotificationGroup' })
export class NotificationGroupDto {
  @ApiPropertyOptional({ type: String })
  readonly _id?: string;

  @ApiProperty({ type: String })
  readonly name!: string;

  @ApiProperty({ type: String })
  readonly _environmentId!: string;

  @ApiProperty({ type: String })
  readonly _organizationId!: string;

  @ApiPropertyOptional({ type: String })
  readonly _parentId?: string;
}

/**
 * A workflow as the contract describes it (`WorkflowResponse`). Declared for the OpenAPI document
 * only: `MessageResponseDto.template` is never sent (see notification-step.dto.ts).
 * @publicApi
 */
@ApiSchema({ name: 'WorkflowResponse' })
export class WorkflowResponseDto {
  @ApiPropertyOptional({ type: String })
  readonly _id?: string;

  @ApiProperty({ type: String })
  readonly name!: string;

  @ApiProperty({ type: String })
  readonly description!: string;

  @ApiProperty({ type: Boolean })
  readonly active!: boolean;

  @ApiProperty({ type: Boolean })
  readonly draft!: boolean;

  @ApiProperty({ type: SubscriberPreferenceChannelsDto })
  readonly preferenceSettings!: SubscriberPreferenceChannelsDto;

  @ApiProperty({ type: Boolean })
  readonly critical!: boolean;

  @ApiProperty({ type: [String] })
  readonly tags!: string[];

  @ApiProperty({ type: [NotificationStepDto] })
  readonly steps!: NotificationStepDto[];

  @ApiProperty({ type: String })
  readonly _organizationId!: string;

  @ApiProperty({ type: String })
  readonly _creatorId!: string;

  @ApiProperty({ type: String })
  readonly _environmentId!: string;

  @ApiProperty({ type: [WorkflowTriggerDto] })
  readonly triggers!: WorkflowTriggerDto[];

  @ApiProperty({ type: String })
  readonly _notificationGroupId!: string;

  @ApiPropertyOptional({ type: String })
  readonly _parentId?: string;

  @ApiProperty({ type: Boolean })
  readonly deleted!: boolean;

  @ApiProperty({ type: String })
  readonly deletedAt!: string;

  @ApiProperty({ type: String })
  readonly deletedBy!: string;

  @ApiPropertyOptional({ type: NotificationGroupDto })
  readonly notificationGroup?: NotificationGroupDto;

  @ApiPropertyOptional({ type: Object })
  readonly data?: object;

  @ApiPropertyOptional({ type: Object })
  readonly workflowIntegrationStatus?: object;
}
