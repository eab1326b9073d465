import { ApiPropertyOptional } from '@nestjs/swagger';

/**
 * Provider credentials (`CredentialsDto`). Which fields a provider needs depends on the provider.
 * Returned only to session callers; API-key callers never receive credentials.
 * @publicApi
 */
export class CredentialsDto {
  @ApiPropertyOptional({ type: String })
  readonly apiKey?: string;

  @ApiPropertyOptional({ type: String })
  readonly user?: string;

  @ApiPropertyOptional({ type: String })
  readonly secretKey?: string;

  @ApiPropertyOptional({ type: String })
  readonly domain?: string;

  @ApiPropertyOptional({ type: String })
  readonly password?: string;

  @ApiPropertyOptional({ type: String })
  readonly host?: string;

  @ApiPropertyOptional({ type: String })
  readonly port?: string;

  @ApiPropertyOptional({ type: Boolean })
  readonly secure?: boolean;

  @ApiPropertyOptional({ type: String })
  readonly region?: string;

  @ApiPropertyOptional({ type: String })
  readonly accountSid?: string;

  @ApiPropertyOptional({ type: String })
  readonly messageProfileId?: string;

  @ApiPropertyOptional({ type: String })
  readonly token?: string;

  @ApiPropertyOptional({ type: String })
  readonly from?: string;

  @ApiPropertyOptional({ type: String })
  readonly senderName?: string;

  @ApiPropertyOptional({ type: String })
  readonly projectName?: string;

  @ApiPropertyOptional({ type: String })
  readonly applicationId?: string;

  @ApiPropertyOptional({ type: String })
  readonly clientId?: string;

  @ApiPropertyOptional({ type: Boolean })
  readonly requireTls?: boolean;

  @ApiPropertyOptional({ type: Boolean })
  readonly ignoreTls?: boolean;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  readonly tlsOptions?: Record<string, unknown>;

  @ApiPropertyOptional({ type: String })
  readonly baseUrl?: string;

  @ApiPropertyOptional({ type: String })
  readonly webhookUrl?: string;

  @ApiPropertyOptional({ type: String })
  readonly redirectUrl?: string;

  @ApiPropertyOptional({ type: Boolean })
  readonly hmac?: boolean;

  @ApiPropertyOptional({ type: String })
  readonly serviceAccount?: string;

  @ApiPropertyOptional({ type: String })
  readonly ipPoolName?: string;

  @ApiPropertyOptional({ type: String })
  readonly apiKeyRequestHeader?: string;

  @ApiPropertyOptional({ type: String })
  readonly secretKeyRequestHeader?: string;

  @ApiPropertyOptional({ type: String })
  readonly idPath?: string;

  @ApiPropertyOptional({ type: String })
  readonly datePath?: string;

  @ApiPropertyOptional({ type: String })
  readonly apiToken?: string;

  @ApiPropertyOptional({ type: Boolean })
  readonly authenticateByToken?: boolean;

  @ApiPropertyOptional({ type: String })
  readonly authenticationTokenKey?: string;

  @ApiPropertyOptional({ type: String })
  readonly instanceId?: string;

  @ApiPropertyOptional({ type: String })
  readonly alertUid?: string;

  @ApiPropertyOptional({ type: String })
  readonly title?: string;

  @ApiPropertyOptional({ type: String })
  readonly imageUrl?: string;

  @ApiPropertyOptional({ type: String })
  readonly state?: string;

  @ApiPropertyOptional({ type: String })
  readonly externalLink?: string;

  @ApiPropertyOptional({ type: String })
  readonly channelId?: string;

  @ApiPropertyOptional({ type: String })
  readonly phoneNumberIdentification?: string;

  @ApiPropertyOptional({ type: String })
  readonly accessKey?: string;

  @ApiPropertyOptional({ type: String })
  readonly appSid?: string;

  @ApiPropertyOptional({ type: String })
  readonly senderId?: string;

  @ApiPropertyOptional({ type: String })
  readonly tenantId?: string;

  @ApiPropertyOptional({ type: String })
  readonly AppIOBaseUrl?: string;

  @ApiPropertyOptional({ type: String })
  readonly signingSecret?: string;

  @ApiPropertyOptional({ type: String })
  readonly outboundIntegrationId?: string;

  @ApiPropertyOptional({ type: String })
  readonly outboundConnectedAt?: string;

  @ApiPropertyOptional({ type: String })
  readonly whatsNextCompletedAt?: string;

  @ApiPropertyOptional({ type: Boolean })
  readonly useFromAddressOverride?: boolean;

  @ApiPropertyOptional({ type: String })
  readonly fromAddressOverride?: string;

  @ApiPropertyOptional({ type: String })
  readonly emailSlugPrefix?: string;

  @ApiPropertyOptional({ type: String })
  readonly externalEnvironmentId?: string;

  @ApiPropertyOptional({ type: String })
  readonly externalVaultId?: string;

  @ApiPropertyOptional({ type: String })
  readonly externalWorkspaceId?: string;
}
