import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CHANNEL_TYPES, type ChannelType, PROVIDER_IDS, type ProviderId } from '../../common/enums';

/**
 * The workspace a connection was made in (for Slack: the team), as the contract's `WorkspaceDto`.
 * @publicApi
 */
export class WorkspaceDto {
  @ApiProperty({ type: String, description: 'The workspace id at the provider.', example: 'T123456' })
  readonly id!: string;

  @ApiPropertyOptional({ type: String, description: 'The workspace name, when known.', example: 'Acme HQ' })
  readonly name?: string;
}

/**
 * The tokens of a connection, as the contract's `AuthDto`. `accessToken` is always present because
 * the SDK requires it; API-key callers receive it redacted (`''`) and nothing else, session callers
 * receive the decrypted tokens.
 * @publicApi
 */
export class AuthDto {
  @ApiProperty({ type: String, description: 'The workspace access token; empty for API-key callers.', example: 'Workspace access token' })
  readonly accessToken!: string;

  @ApiPropertyOptional({ type: String, description: 'The workspace refresh token (session callers only).', example: 'Workspace refresh token' })
  readonly refreshToken?: string;

  @ApiPropertyOptional({ type: String, description: 'When the access token expires (session callers only).', example: '2026-06-15T12:00:00.000Z' })
  readonly expiresAt?: string;

  @ApiPropertyOptional({
    type: String,
    description: 'When the refresh token expires (session callers only).',
    example: '2026-09-15T12:00:00.000Z',
  })
  readonly refreshTokenExpiresAt?: string;
}

/**
 * A channel connection, as the API returns it (the contract's `GetChannelConnectionResponseDto`).
 * Nullable fields are present with null.
 * @publicApi
 */
export class GetChannelConnectionResponseDto {
  // Not in the contract, but the list's cursors (`next`, `previous`, `after`, `before`) are item ids:
  // without the id a client could not start a page at an item it holds (e.g. with `includeCursor`).
  // Clients that validate against the contract ignore the extra key (the SDK strips unknown keys).
  @ApiPropertyOptional({ type: String, description: 'Our id of the connection; the value the list cursors take.' })
  readonly _id?: string;

  @ApiProperty({ type: String, description: 'The unique identifier of the channel endpoint.' })
  readonly identifier!: string;

  @ApiProperty({ enum: CHANNEL_TYPES, type: String, nullable: true, description: 'The channel type (email, sms, push, chat, etc.).' })
  readonly channel!: ChannelType | null;

  @ApiProperty({
    enum: PROVIDER_IDS,
    type: String,
    nullable: true,
    description: 'The provider identifier (e.g., sendgrid, twilio, slack, etc.).',
    example: 'slack',
  })
  readonly providerId!: ProviderId | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The identifier of the integration to use for this channel endpoint.',
    example: 'slack-prod',
  })
  readonly integrationIdentifier!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The subscriber ID to which the channel connection is linked', example: 'subscriber-123' })
  readonly subscriberId!: string | null;

  @ApiProperty({ type: [String], description: 'The context of the channel connection', example: ['tenant:org-123', 'region:us-east-1'] })
  readonly contextKeys!: string[];

  @ApiProperty({ type: WorkspaceDto })
  readonly workspace!: WorkspaceDto;

  @ApiProperty({ type: AuthDto })
  readonly auth!: AuthDto;

  @ApiProperty({ type: String, description: 'When the connection was created (ISO-8601).' })
  readonly createdAt!: string;

  @ApiProperty({ type: String, description: 'When the connection was last updated (ISO-8601).' })
  readonly updatedAt!: string;
}
