import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CHAT_OR_PUSH_PROVIDER_IDS, type ChatOrPushProviderId } from '../../common/enums';

/** @publicApi */
export class ChannelCredentialsDto {
  @ApiPropertyOptional({ type: String, description: 'Webhook URL of a chat channel.' })
  readonly webhookUrl?: string;

  @ApiPropertyOptional({ type: String, description: 'Channel of a chat provider.' })
  readonly channel?: string;

  @ApiPropertyOptional({ type: [String], description: 'Device tokens of a push provider.' })
  readonly deviceTokens?: string[];

  @ApiPropertyOptional({ type: String })
  readonly alertUid?: string;

  @ApiPropertyOptional({ type: String })
  readonly title?: string;

  @ApiPropertyOptional({ type: String })
  readonly imageUrl?: string;

  @ApiPropertyOptional({ type: String })
  readonly state?: string;

  @ApiPropertyOptional({ type: String })
  readonly externalUrl?: string;
}

/** A chat or push channel of a subscriber. @publicApi */
export class ChannelSettingsDto {
  @ApiProperty({ enum: CHAT_OR_PUSH_PROVIDER_IDS, enumName: 'ChatOrPushProviderEnum', description: 'The provider of the channel.' })
  readonly providerId!: ChatOrPushProviderId;

  @ApiPropertyOptional({ type: String, description: 'The integration the channel uses.' })
  readonly integrationIdentifier?: string;

  @ApiProperty({ type: ChannelCredentialsDto, description: 'Where to deliver on this channel.' })
  readonly credentials!: ChannelCredentialsDto;

  @ApiProperty({ type: String, description: 'Id of the integration.' })
  readonly _integrationId!: string;
}

/**
 * A subscriber, as the API returns it. Nullable fields are present with null; optional ones are
 * omitted when unset.
 * @publicApi
 */
export class SubscriberResponseDto {
  @ApiPropertyOptional({ type: String, description: 'Our id of the subscriber.' })
  readonly _id?: string;

  @ApiPropertyOptional({ type: String, nullable: true })
  readonly firstName?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  readonly lastName?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  readonly email?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  readonly phone?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  readonly avatar?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  readonly locale?: string | null;

  @ApiPropertyOptional({ type: [ChannelSettingsDto], description: 'Chat and push channels.' })
  readonly channels?: ChannelSettingsDto[];

  @ApiPropertyOptional({ type: [String], description: 'Topics the subscriber belongs to.' })
  readonly topics?: string[];

  @ApiPropertyOptional({ type: Boolean, nullable: true })
  readonly isOnline?: boolean | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'When the subscriber last went offline.' })
  readonly lastOnlineAt?: string | null;

  @ApiPropertyOptional({ type: Number, description: 'Version, incremented on every update.' })
  readonly __v?: number;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true })
  readonly data?: Record<string, unknown> | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  readonly timezone?: string | null;

  @ApiProperty({ type: String, description: 'The caller\'s identifier of the subscriber.' })
  readonly subscriberId!: string;

  @ApiProperty({ type: String })
  readonly _organizationId!: string;

  @ApiProperty({ type: String })
  readonly _environmentId!: string;

  @ApiProperty({ type: Boolean })
  readonly deleted!: boolean;

  @ApiProperty({ type: String })
  readonly createdAt!: string;

  @ApiProperty({ type: String })
  readonly updatedAt!: string;
}
