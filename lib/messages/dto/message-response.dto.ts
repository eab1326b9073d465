import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { CHANNEL_TYPES, type ChannelType, MESSAGE_STATUSES, type MessageStatus } from '../../common/enums';
import { SubscriberResponseDto } from '../../subscribers/dto/subscriber-response.dto';
import { EmailBlockDto } from './email-block.dto';
import { MessageCtaDto } from './message-cta.dto';
import { WorkflowResponseDto } from './workflow-response.dto';

/**
 * A message, as the API returns it. Optional fields that are not nullable in the contract are omitted
 * when unset (the SDK rejects `null` for them); the four nullable ones are present with `null`.
 * `subscriber` and `template` are declared by the contract but never sent: the SDK validates them
 * strictly and they would cost a join per message for data the caller already has.
 * @publicApi
 */
@ApiExtraModels(EmailBlockDto)
export class MessageResponseDto {
  @ApiPropertyOptional({ type: String, description: 'Unique identifier for the message.' })
  readonly _id?: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Id of the workflow that sent the message.' })
  readonly _templateId?: string | null;

  @ApiProperty({ type: String, description: 'Environment ID where the message is sent.' })
  readonly _environmentId!: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Id of the workflow step (its `_templateId`).' })
  readonly _messageTemplateId?: string | null;

  @ApiProperty({ type: String })
  readonly _organizationId!: string;

  @ApiProperty({ type: String, description: 'The notification (one workflow run) the message belongs to.' })
  readonly _notificationId!: string;

  @ApiProperty({ type: String, description: 'Our id of the subscriber (`SubscriberResponseDto._id`).' })
  readonly _subscriberId!: string;

  @ApiPropertyOptional({ type: SubscriberResponseDto, description: 'Declared by the contract; never sent.' })
  readonly subscriber?: SubscriberResponseDto;

  @ApiPropertyOptional({ type: WorkflowResponseDto, description: 'Declared by the contract; never sent.' })
  readonly template?: WorkflowResponseDto;

  @ApiPropertyOptional({ type: String, description: 'Identifier of the workflow that sent the message.' })
  readonly templateIdentifier?: string;

  @ApiProperty({ type: String, description: 'Creation date (ISO-8601).' })
  readonly createdAt!: string;

  @ApiPropertyOptional({ type: [String], description: 'Delivery dates of the message, if it was delivered more than once.' })
  readonly deliveredAt?: string[];

  @ApiPropertyOptional({ type: String, description: 'When the message was last marked seen (ISO-8601).' })
  readonly lastSeenDate?: string;

  @ApiPropertyOptional({ type: String, description: 'When the message was last marked read (ISO-8601).' })
  readonly lastReadDate?: string;

  // Null is declared on the string alternative, not beside `oneOf`: @nestjs/swagger keeps a `type` next to a
  // top-level `nullable` (here `object`), which would contradict both alternatives.
  @ApiPropertyOptional({
    description: 'Content of the message: a string, or email blocks; null when the message has none.',
    oneOf: [{ type: 'array', items: { $ref: getSchemaPath(EmailBlockDto) } }, { type: 'string', nullable: true }],
  })
  readonly content?: EmailBlockDto[] | string | null;

  @ApiProperty({ type: String, description: 'Transaction of the trigger that sent the message.' })
  readonly transactionId!: string;

  @ApiPropertyOptional({ type: String, description: 'Subject of the message, if applicable.' })
  readonly subject?: string;

  @ApiProperty({ enum: CHANNEL_TYPES, enumName: 'ChannelTypeEnum', description: 'The channel the message was sent on.' })
  readonly channel!: ChannelType;

  @ApiProperty({ type: Boolean })
  readonly read!: boolean;

  @ApiProperty({ type: Boolean })
  readonly seen!: boolean;

  @ApiPropertyOptional({ type: String, description: 'When a snoozed message comes back (ISO-8601).' })
  readonly snoozedUntil?: string;

  @ApiPropertyOptional({ type: String })
  readonly email?: string;

  @ApiPropertyOptional({ type: String })
  readonly phone?: string;

  @ApiPropertyOptional({ type: String })
  readonly directWebhookUrl?: string;

  @ApiPropertyOptional({ type: String, description: 'The provider that delivered the message.' })
  readonly providerId?: string;

  @ApiPropertyOptional({ type: [String] })
  readonly deviceTokens?: string[];

  @ApiPropertyOptional({ type: String })
  readonly title?: string;

  @ApiProperty({ type: MessageCtaDto, description: 'Call to action; `{}` when there is none.' })
  readonly cta!: MessageCtaDto;

  @ApiPropertyOptional({ type: String, nullable: true })
  readonly _feedId?: string | null;

  @ApiProperty({ enum: MESSAGE_STATUSES, enumName: 'MessageStatusEnum' })
  readonly status!: MessageStatus;

  @ApiPropertyOptional({ type: String, description: 'Error id if the message has an error.' })
  readonly errorId?: string;

  @ApiPropertyOptional({ type: String, description: 'Error text if the message has an error.' })
  readonly errorText?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'The payload of the trigger.' })
  readonly payload?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Provider overrides of the trigger.' })
  readonly overrides?: Record<string, unknown>;

  @ApiPropertyOptional({ type: [String], description: 'Contexts the message was sent in.', example: ['tenant:org-123'] })
  readonly contextKeys?: string[];
}
