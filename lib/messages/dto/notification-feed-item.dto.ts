import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CHANNEL_TYPES, type ChannelType, MESSAGE_STATUSES, type MessageStatus } from '../../common/enums';
import { MessageCtaDto } from './message-cta.dto';

/** Kinds of actor of a feed item (`ActorTypeEnum`). */
export const ACTOR_TYPES = ['none', 'user', 'system_icon', 'system_custom'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/** Who a feed item is shown as coming from (`ActorFeedItemDto`). Declared by the contract; never sent. @publicApi */
export class ActorFeedItemDto {
  @ApiProperty({ type: String, nullable: true, description: 'The data associated with the actor, can be null if not applicable.' })
  readonly data!: string | null;

  @ApiProperty({ enum: ACTOR_TYPES, enumName: 'ActorTypeEnum', description: 'The type of the actor, indicating the role in the notification process.' })
  readonly type!: ActorType;
}

/** The subscriber a feed item was sent to; fields the subscriber has not set are omitted. @publicApi */
export class SubscriberFeedResponseDto {
  @ApiPropertyOptional({ type: String, description: 'Our id of the subscriber (not the `subscriberId` used in your queries).' })
  readonly _id?: string;

  @ApiPropertyOptional({ type: String, description: 'The first name of the subscriber.' })
  readonly firstName?: string;

  @ApiPropertyOptional({ type: String, description: 'The last name of the subscriber.' })
  readonly lastName?: string;

  @ApiPropertyOptional({ type: String, description: 'The URL of the subscriber\'s avatar image.' })
  readonly avatar?: string;

  @ApiProperty({ type: String, description: 'The identifier used to create this subscriber (your user id).' })
  readonly subscriberId!: string;
}

/**
 * An in-app message as the subscriber feed shows it. Unlike `MessageResponseDto`, `content` is always a
 * string, nullable fields are present with `null`, and optional non-nullable ones are omitted when unset.
 * @publicApi
 */
export class NotificationFeedItemDto {
  @ApiProperty({ type: String, description: 'Unique identifier for the notification (the message id).' })
  readonly _id!: string;

  @ApiProperty({
    type: String,
    description: 'Id of the workflow that sent the notification; an empty string for a message sent without one.',
  })
  readonly _templateId!: string;

  @ApiProperty({ type: String, description: 'Identifier for the environment where the notification is sent.' })
  readonly _environmentId!: string;

  @ApiPropertyOptional({ type: String, description: 'Id of the workflow step (its `_templateId`); omitted when unknown.' })
  readonly _messageTemplateId?: string;

  @ApiProperty({ type: String, description: 'Identifier for the organization sending the notification.' })
  readonly _organizationId!: string;

  @ApiProperty({ type: String, description: 'The notification (one workflow run) the message belongs to.' })
  readonly _notificationId!: string;

  @ApiProperty({ type: String, description: 'Our id of the subscriber receiving the notification.' })
  readonly _subscriberId!: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Identifier for the feed associated with the notification.' })
  readonly _feedId?: string | null;

  @ApiProperty({
    type: String,
    description: 'Id of the job that delivered the notification; an empty string for a message written without one.',
  })
  readonly _jobId!: string;

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true, description: 'When the notification was created (ISO-8601).' })
  readonly createdAt?: string | null;

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true, description: 'When the notification was last updated (ISO-8601).' })
  readonly updatedAt?: string | null;

  @ApiPropertyOptional({ type: ActorFeedItemDto, description: 'Actor details related to the notification; not sent by this service.' })
  readonly actor?: ActorFeedItemDto;

  @ApiPropertyOptional({ type: SubscriberFeedResponseDto, description: 'Subscriber details associated with this notification.' })
  readonly subscriber?: SubscriberFeedResponseDto;

  @ApiProperty({ type: String, description: 'Transaction of the trigger that sent the notification.' })
  readonly transactionId!: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Identifier of the workflow that sent the notification.' })
  readonly templateIdentifier?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'The provider that delivered the notification.' })
  readonly providerId?: string | null;

  @ApiProperty({
    type: String,
    description: 'The main content of the notification; for content made of email blocks, their texts one per line.',
  })
  readonly content!: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'The subject line, if applicable.' })
  readonly subject?: string | null;

  @ApiProperty({ enum: CHANNEL_TYPES, enumName: 'ChannelTypeEnum' })
  readonly channel!: ChannelType;

  @ApiProperty({ type: Boolean, description: 'Whether the subscriber read the notification.' })
  readonly read!: boolean;

  @ApiProperty({ type: Boolean, description: 'Whether the subscriber saw the notification.' })
  readonly seen!: boolean;

  @ApiProperty({ type: Boolean, description: 'Whether the subscriber archived the notification.' })
  readonly archived!: boolean;

  @ApiPropertyOptional({ type: [String], nullable: true, description: 'Device tokens for push notifications, if applicable.' })
  readonly deviceTokens?: string[] | null;

  @ApiProperty({ type: MessageCtaDto, description: 'Call to action; `{}` when there is none.' })
  readonly cta!: MessageCtaDto;

  @ApiProperty({ type: String, enum: MESSAGE_STATUSES, description: 'Current status of the notification.' })
  readonly status!: MessageStatus;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'The payload of the trigger.' })
  readonly payload?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true, description: 'The data sent with the notification; null when none.' })
  readonly data?: Record<string, unknown> | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Provider-specific overrides of the trigger.' })
  readonly overrides?: Record<string, unknown>;

  @ApiPropertyOptional({ type: [String], nullable: true, description: 'Tags of the workflow that sent the notification.' })
  readonly tags?: string[] | null;
}
