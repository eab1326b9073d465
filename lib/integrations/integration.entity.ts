import { Entity, Index, type Opt, Property, Unique } from '@mikro-orm/core';
import { EnvironmentScopedEntity } from '../common/base.entity';
import type { ChannelType, IntegrationKind } from '../common/enums';
import type { StepFilter } from '../common/step-filter';

/** Non-secret settings of an integration (`ConfigurationsDto`). */
export interface IntegrationConfigurations {
  inboundWebhookEnabled?: boolean;
  inboundWebhookSigningKey?: string;
}

/**
 * A configured connection to a delivery provider (SendGrid, Twilio, Slack, ...).
 * `credentials` holds the provider's secrets as one encrypted JSON document (see SecretCipher);
 * it is decrypted only for session callers and for the delivery worker.
 * @publicApi
 */
@Entity({ tableName: 'ntf_integration' })
@Unique({ name: 'ntf_integration_environment_identifier_unique', properties: ['environmentId', 'identifier'] })
@Index({ name: 'ntf_integration_environment_created_idx', properties: ['environmentId', 'createdAt', 'id'] })
@Index({ name: 'ntf_integration_organization_created_idx', properties: ['organizationId', 'createdAt', 'id'] })
export class IntegrationEntity extends EnvironmentScopedEntity {
  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  identifier!: string;

  @Property({ type: 'text', fieldName: 'provider_id' })
  providerId!: string;

  /** Null for agent integrations, which deliver on no channel. */
  @Property({ type: 'text', nullable: true })
  channel: (ChannelType & Opt) | null = null;

  @Property({ type: 'text' })
  kind: IntegrationKind & Opt = 'delivery';

  /** Encrypted JSON of the provider credentials; null when there are none. */
  @Property({ type: 'text', fieldName: 'credentials_encrypted', nullable: true })
  credentialsEncrypted: (string & Opt) | null = null;

  @Property({ type: 'json' })
  configurations: IntegrationConfigurations & Opt = {};

  @Property({ type: 'boolean' })
  active: boolean & Opt = false;

  @Property({ type: 'boolean' })
  primary: boolean & Opt = false;

  @Property({ type: 'integer' })
  priority: number & Opt = 0;

  @Property({ type: 'json' })
  conditions: StepFilter[] & Opt = [];

  @Property({ type: 'boolean' })
  deleted: boolean & Opt = false;

  @Property({ type: 'datetime', fieldName: 'deleted_at', nullable: true })
  deletedAt: (Date & Opt) | null = null;

  @Property({ type: 'text', fieldName: 'deleted_by', nullable: true })
  deletedBy: (string & Opt) | null = null;

  @Property({ type: 'integer' })
  version: number & Opt = 0;
}
