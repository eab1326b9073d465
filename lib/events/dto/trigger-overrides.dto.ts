import { ApiExtraModels, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';

/** Severity levels a trigger may set (`SeverityLevelEnum`). */
export const SEVERITY_LEVELS = ['high', 'medium', 'low', 'none'] as const;
export type SeverityLevel = (typeof SEVERITY_LEVELS)[number];

const PROVIDER_OVERRIDES = {
  type: 'object',
  additionalProperties: { type: 'object', additionalProperties: true },
} as const;

/** Overrides of one step, keyed by step id in {@link TriggerOverrides.steps}. @publicApi */
export class StepsOverrides {
  @ApiPropertyOptional({
    ...PROVIDER_OVERRIDES,
    description: 'Passing the provider id and the provider specific configurations',
    example: { sendgrid: { templateId: '1234567890' } },
  })
  readonly providers?: Record<string, Record<string, unknown>>;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Override the or remove the layout for this specific step',
    example: 'welcome-email-layout',
  })
  readonly layoutId?: string | null;
}

/** Overrides of every email step of the workflow. @publicApi */
export class EmailChannelOverrides {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Override or remove the layout for all email steps in the workflow',
    example: 'promotional-layout-2024',
  })
  readonly layoutId?: string | null;
}

/** Overrides per channel type. @publicApi */
export class ChannelOverrides {
  @ApiPropertyOptional({ type: () => EmailChannelOverrides, description: 'Email channel specific overrides' })
  readonly email?: EmailChannelOverrides;
}

/**
 * A trigger's `overrides`. Stored on every job of the run as given; the delivery worker reads them.
 * @publicApi
 */
@ApiExtraModels(StepsOverrides)
export class TriggerOverrides {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(StepsOverrides) },
    description: 'This could be used to override provider specific configurations or layout at the step level',
    example: { 'email-step': { providers: { sendgrid: { templateId: '1234567890' } }, layoutId: 'step-specific-layout' } },
  })
  readonly steps?: Record<string, StepsOverrides>;

  @ApiPropertyOptional({
    type: () => ChannelOverrides,
    description:
      'Channel-specific overrides that apply to all steps of a particular channel type. Step-level overrides take precedence over channel-level overrides.',
    example: { email: { layoutId: 'promotional-layout-2024' } },
  })
  readonly channels?: ChannelOverrides;

  @ApiPropertyOptional({
    ...PROVIDER_OVERRIDES,
    description: 'Overrides the provider configuration for the entire workflow and all steps',
    example: { sendgrid: { templateId: '1234567890' } },
  })
  readonly providers?: Record<string, Record<string, unknown>>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    deprecated: true,
    description: 'Override the email provider specific configurations for the entire workflow',
  })
  readonly email?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    deprecated: true,
    description: 'Override the push provider specific configurations for the entire workflow',
  })
  readonly push?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    deprecated: true,
    description: 'Override the sms provider specific configurations for the entire workflow',
  })
  readonly sms?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    deprecated: true,
    description: 'Override the chat provider specific configurations for the entire workflow',
  })
  readonly chat?: Record<string, unknown>;

  @ApiPropertyOptional({ type: String, deprecated: true, description: 'Override the layout identifier for the entire workflow' })
  readonly layoutIdentifier?: string;

  @ApiPropertyOptional({ enum: SEVERITY_LEVELS, enumName: 'SeverityLevelEnum', description: 'Severity of the workflow' })
  readonly severity?: SeverityLevel;
}
