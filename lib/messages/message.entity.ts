import { ArrayType, Entity, Index, type Opt, Property } from '@mikro-orm/core';
import { EnvironmentScopedEntity } from '../common/base.entity';
import type { ChannelType, MessageStatus } from '../common/enums';

/** A call to action of a message (`MessageCTA`). */
export interface MessageCta {
  type?: 'redirect';
  data?: { url?: string };
  action?: {
    status?: 'pending' | 'done';
    buttons?: { type: 'primary' | 'secondary'; content: string; resultContent?: string }[];
    result?: { payload?: Record<string, unknown>; type?: 'primary' | 'secondary' };
  };
}

/** An email block (`EmailBlock`), for messages whose content is made of blocks. */
export interface MessageContentBlock {
  type: 'button' | 'text';
  content: string;
  url?: string;
  styles?: { textAlign: 'center' | 'left' | 'right' };
}

/**
 * A message delivered (or attempted) on one channel: an in-app notification in a subscriber's feed,
 * an email, an SMS, ... `subscriberId` is our subscriber row id (the contract's `_subscriberId`).
 * @publicApi
 */
@Entity({ tableName: 'ntf_message' })
@Index({ name: 'ntf_message_subscriber_idx', properties: ['environmentId', 'subscriberId', 'createdAt', 'id'] })
@Index({ name: 'ntf_message_transaction_idx', properties: ['environmentId', 'transactionId'] })
@Index({ name: 'ntf_message_notification_idx', properties: ['notificationId'] })
@Index({ name: 'ntf_message_environment_created_idx', properties: ['environmentId', 'createdAt', 'id'] })
@Index({ name: 'ntf_message_channel_idx', properties: ['environmentId', 'channel', 'createdAt', 'id'] })
export class MessageEntity extends EnvironmentScopedEntity {
  @Property({ type: 'text', fieldName: 'notification_id' })
  notificationId!: string;

  @Property({ type: 'text', fieldName: 'subscriber_id' })
  subscriberId!: string;

  /**
   * The job that produced the message. Unique: a job redelivered after a crash never creates a
   * second message (DESIGN §8).
   */
  @Property({ type: 'text', fieldName: 'job_id', nullable: true, unique: 'ntf_message_job_unique' })
  jobId: (string & Opt) | null = null;

  @Property({ type: 'text', fieldName: 'workflow_id', nullable: true })
  workflowId: (string & Opt) | null = null;

  /** The step's `_templateId`. */
  @Property({ type: 'text', fieldName: 'message_template_id', nullable: true })
  messageTemplateId: (string & Opt) | null = null;

  @Property({ type: 'text', fieldName: 'template_identifier', nullable: true })
  templateIdentifier: (string & Opt) | null = null;

  @Property({ type: 'text', fieldName: 'transaction_id' })
  transactionId!: string;

  @Property({ type: 'text' })
  channel!: ChannelType;

  @Property({ type: 'text', fieldName: 'provider_id', nullable: true })
  providerId: (string & Opt) | null = null;

  @Property({ type: 'text', nullable: true })
  subject: (string & Opt) | null = null;

  @Property({ type: 'text', nullable: true })
  title: (string & Opt) | null = null;

  /** A string, or email blocks. */
  @Property({ type: 'json', nullable: true })
  content: (string | MessageContentBlock[] | (null & Opt)) | null = null;

  @Property({ type: 'json' })
  cta: MessageCta & Opt = {};

  @Property({ type: 'json' })
  payload: Record<string, unknown> & Opt = {};

  @Property({ type: 'json' })
  overrides: Record<string, unknown> & Opt = {};

  @Property({ type: 'text', nullable: true })
  email: (string & Opt) | null = null;

  @Property({ type: 'text', nullable: true })
  phone: (string & Opt) | null = null;

  @Property({ type: 'text', fieldName: 'direct_webhook_url', nullable: true })
  directWebhookUrl: (string & Opt) | null = null;

  @Property({ type: ArrayType, columnType: 'text[]', fieldName: 'device_tokens', nullable: true })
  deviceTokens: (string[] & Opt) | null = null;

  @Property({ type: 'text', fieldName: 'feed_id', nullable: true })
  feedId: (string & Opt) | null = null;

  @Property({ type: 'boolean' })
  read: boolean & Opt = false;

  @Property({ type: 'boolean' })
  seen: boolean & Opt = false;

  @Property({ type: 'boolean' })
  archived: boolean & Opt = false;

  @Property({ type: 'datetime', fieldName: 'last_read_date', nullable: true })
  lastReadDate: (Date & Opt) | null = null;

  @Property({ type: 'datetime', fieldName: 'last_seen_date', nullable: true })
  lastSeenDate: (Date & Opt) | null = null;

  @Property({ type: 'datetime', fieldName: 'snoozed_until', nullable: true })
  snoozedUntil: (Date & Opt) | null = null;

  @Property({ type: 'text' })
  status: MessageStatus & Opt = 'sent';

  @Property({ type: 'text', fieldName: 'error_id', nullable: true })
  errorId: (string & Opt) | null = null;

  @Property({ type: 'text', fieldName: 'error_text', nullable: true })
  errorText: (string & Opt) | null = null;

  /** The vendor's id of the sent message. */
  @Property({ type: 'text', fieldName: 'provider_message_id', nullable: true })
  providerMessageId: (string & Opt) | null = null;

  @Property({ type: ArrayType, columnType: 'text[]' })
  tags: string[] & Opt = [];

  @Property({ type: ArrayType, columnType: 'text[]', fieldName: 'context_keys' })
  contextKeys: string[] & Opt = [];

  @Property({ type: 'boolean' })
  deleted: boolean & Opt = false;
}
