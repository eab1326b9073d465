import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { StepFilterDto } from '../../common/dto/step-filter.dto';
import { CHANNEL_TYPES, type ChannelType, INTEGRATION_KINDS, type IntegrationKind } from '../../common/enums';
import { CredentialsDto } from './credentials.dto';

/** Non-secret integration settings (`ConfigurationsDto`). @publicApi */
export class ConfigurationsDto {
  @ApiPropertyOptional({ type: Boolean })
  readonly inboundWebhookEnabled?: boolean;

  @ApiPropertyOptional({ type: String })
  readonly inboundWebhookSigningKey?: string;
}

/** An integration, as the API returns it. @publicApi */
export class IntegrationResponseDto {
  @ApiPropertyOptional({ type: String })
  readonly _id?: string;

  @ApiProperty({ type: String })
  readonly _environmentId!: string;

  @ApiProperty({ type: String })
  readonly _organizationId!: string;

  @ApiProperty({ type: String, description: 'Display name.' })
  readonly name!: string;

  @ApiProperty({ type: String, description: 'Unique identifier in the environment; steps may name it.' })
  readonly identifier!: string;

  @ApiProperty({ type: String, description: 'The provider, e.g. `sendgrid`.' })
  readonly providerId!: string;

  @ApiPropertyOptional({ enum: CHANNEL_TYPES, type: String, description: 'Absent for agent integrations.' })
  readonly channel?: ChannelType;

  @ApiPropertyOptional({ enum: INTEGRATION_KINDS, type: String })
  readonly kind?: IntegrationKind;

  @ApiPropertyOptional({ type: CredentialsDto, description: 'Decrypted credentials, for session callers only.' })
  readonly credentials?: CredentialsDto;

  @ApiPropertyOptional({ type: ConfigurationsDto })
  readonly configurations?: ConfigurationsDto;

  @ApiProperty({ type: Boolean })
  readonly active!: boolean;

  @ApiProperty({ type: Boolean })
  readonly deleted!: boolean;

  @ApiPropertyOptional({ type: String })
  readonly deletedAt?: string;

  @ApiPropertyOptional({ type: String })
  readonly deletedBy?: string;

  @ApiProperty({ type: Boolean, description: 'The integration a channel step uses by default.' })
  readonly primary!: boolean;

  @ApiPropertyOptional({ type: [StepFilterDto], description: 'When this integration is selected.' })
  readonly conditions?: StepFilterDto[];
}
