import { Entity, Index, type Opt, Property, Unique } from '@mikro-orm/core';
import { EnvironmentScopedEntity } from '../common/base.entity';
import type { ChatOrPushProviderId } from '../common/enums';

/** A chat or push channel setting of a subscriber (`ChannelSettingsDto`). */
export interface SubscriberChannel {
  providerId: ChatOrPushProviderId;
  integrationIdentifier?: string;
  /** Id of the integration the credentials belong to. */
  integrationId: string;
  credentials: {
    webhookUrl?: string;
    channel?: string;
    deviceTokens?: string[];
    alertUid?: string;
    title?: string;
    imageUrl?: string;
    state?: string;
    externalUrl?: string;
  };
}

/**
 * A recipient. `subscriberId` is the caller's own identifier for the person, unique per environment;
 * `id` is ours (the contract's `_id`).
 * @publicApi
 */
@Entity({ tableName: 'ntf_subscriber' })
@Unique({ name: 'ntf_subscriber_environment_subscriber_unique', properties: ['environmentId', 'subscriberId'] })
@Index({ name: 'ntf_subscriber_environment_created_idx', properties: ['environmentId', 'createdAt', 'id'] })
@Index({ name: 'ntf_subscriber_email_idx', properties: ['environmentId', 'email'] })
export class SubscriberEntity extends EnvironmentScopedEntity {
  @Property({ type: 'text', fieldName: 'subscriber_id' })
  subscriberId!: string;

  @Property({ type: 'text', fieldName: 'first_name', nullable: true })
  firstName: (string & Opt) | null = null;

  @Property({ type: 'text', fieldName: 'last_name', nullable: true })
  lastName: (string & Opt) | null = null;

  @Property({ type: 'text', nullable: true })
  email: (string & Opt) | null = null;

  @Property({ type: 'text', nullable: true })
  phone: (string & Opt) | null = null;

  @Property({ type: 'text', nullable: true })
  avatar: (string & Opt) | null = null;

  @Property({ type: 'text', nullable: true })
  locale: (string & Opt) | null = null;

  @Property({ type: 'text', nullable: true })
  timezone: (string & Opt) | null = null;

  @Property({ type: 'json', nullable: true })
  data: (Record<string, unknown> & Opt) | null = null;

  @Property({ type: 'json' })
  channels: SubscriberChannel[] & Opt = [];

  @Property({ type: 'boolean', fieldName: 'is_online', nullable: true })
  isOnline: (boolean & Opt) | null = null;

  @Property({ type: 'datetime', fieldName: 'last_online_at', nullable: true })
  lastOnlineAt: (Date & Opt) | null = null;

  @Property({ type: 'boolean' })
  deleted: boolean & Opt = false;

  /** Incremented on every update; the contract's `__v`. */
  @Property({ type: 'integer' })
  version: number & Opt = 0;
}
