import { ArrayType, Entity, Index, type Opt, Property, Unique } from '@mikro-orm/core';
import { EnvironmentScopedEntity } from '../common/base.entity';
import type { ChannelType } from '../common/enums';

/** The workspace a connection was made in (for Slack: the team). */
export interface ChannelConnectionWorkspace {
  id: string;
  name?: string;
}

/** The secret part of a connection, stored encrypted. */
export interface ChannelConnectionAuth {
  accessToken: string;
  refreshToken?: string;
  expiresAt?: string;
  refreshTokenExpiresAt?: string;
}

/**
 * An OAuth-style connection of a chat workspace (Slack, MS Teams, ...) to a subscriber or to a
 * context (`tenant:acme`), used by chat providers to post on the subscriber's behalf.
 *
 * `subscriberId` is the caller's subscriber identifier (not our row id), as in the contract.
 * `contextKeys` is stored sorted and without duplicates, so an exact-set match is an equality.
 * @publicApi
 */
@Entity({ tableName: 'ntf_channel_connection' })
@Unique({ name: 'ntf_channel_connection_environment_identifier_unique', properties: ['environmentId', 'identifier'] })
@Index({ name: 'ntf_channel_connection_created_idx', properties: ['environmentId', 'createdAt', 'id'] })
@Index({ name: 'ntf_channel_connection_updated_idx', properties: ['environmentId', 'updatedAt', 'id'] })
@Index({ name: 'ntf_channel_connection_subscriber_idx', properties: ['environmentId', 'subscriberId', 'createdAt', 'id'] })
@Index({
  name: 'ntf_channel_connection_integration_idx',
  properties: ['environmentId', 'integrationIdentifier', 'createdAt', 'id'],
})
@Index({ name: 'ntf_channel_connection_context_idx', properties: ['environmentId', 'contextKeys', 'createdAt', 'id'] })
export class ChannelConnectionEntity extends EnvironmentScopedEntity {
  @Property({ type: 'text' })
  identifier!: string;

  @Property({ type: 'text', nullable: true })
  channel: (ChannelType & Opt) | null = null;

  @Property({ type: 'text', fieldName: 'provider_id', nullable: true })
  providerId: (string & Opt) | null = null;

  @Property({ type: 'text', fieldName: 'integration_identifier', nullable: true })
  integrationIdentifier: (string & Opt) | null = null;

  @Property({ type: 'text', fieldName: 'subscriber_id', nullable: true })
  subscriberId: (string & Opt) | null = null;

  @Property({ type: ArrayType, columnType: 'text[]', fieldName: 'context_keys' })
  contextKeys: string[] & Opt = [];

  @Property({ type: 'json' })
  workspace!: ChannelConnectionWorkspace;

  /** Encrypted JSON of {@link ChannelConnectionAuth}. */
  @Property({ type: 'text', fieldName: 'auth_encrypted' })
  authEncrypted!: string;
}
