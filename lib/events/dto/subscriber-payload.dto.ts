import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CHAT_OR_PUSH_PROVIDER_IDS, type ChatOrPushProviderId } from '../../common/enums';
import { ChannelCredentialsDto } from '../../subscribers/dto/subscriber-response.dto';

/**
 * A chat or push channel given with a subscriber in a trigger. Unlike the stored
 * `ChannelSettingsDto`, it has no `_integrationId`: the integration is found by
 * `integrationIdentifier`, else by provider.
 * @publicApi
 */
export class SubscriberChannelDto {
  @ApiProperty({ type: String, enum: CHAT_OR_PUSH_PROVIDER_IDS, description: 'The ID of the chat or push provider.' })
  readonly providerId!: ChatOrPushProviderId;

  @ApiPropertyOptional({ type: String, description: 'An optional identifier for the integration.' })
  readonly integrationIdentifier?: string;

  @ApiProperty({ type: () => ChannelCredentialsDto, description: 'Credentials for the channel.' })
  readonly credentials!: ChannelCredentialsDto;
}

/**
 * A recipient (or actor) given as an object: created when new, otherwise updated with the fields given.
 * @publicApi
 */
export class SubscriberPayloadDto {
  @ApiPropertyOptional({ type: String, nullable: true, description: 'First name of the subscriber', example: 'John' })
  readonly firstName?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Last name of the subscriber', example: 'Doe' })
  readonly lastName?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Email address of the subscriber', example: 'john.doe@example.com' })
  readonly email?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Phone number of the subscriber', example: '+1234567890' })
  readonly phone?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Avatar URL or identifier', example: 'https://example.com/avatar.jpg' })
  readonly avatar?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Locale of the subscriber', example: 'en-US' })
  readonly locale?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Timezone of the subscriber', example: 'America/New_York' })
  readonly timezone?: string | null;

  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    description: 'Additional custom data associated with the subscriber',
  })
  readonly data?: Record<string, unknown> | null;

  @ApiProperty({
    type: String,
    minLength: 1,
    description: 'The internal identifier you used to create this subscriber, usually correlates to the id the user in your systems',
  })
  readonly subscriberId!: string;

  @ApiPropertyOptional({ type: () => [SubscriberChannelDto], description: 'An optional array of subscriber channels.' })
  readonly channels?: SubscriberChannelDto[];
}
