import { ArrayType, Entity, Index, type Opt, Property } from '@mikro-orm/core';
import { EnvironmentScopedEntity } from '../common/base.entity';
import type { StepType } from '../common/enums';

/**
 * One run of a workflow for one recipient: the parent of its jobs, execution details and messages.
 * `subscriberId` is our subscriber row id (the contract's `_subscriberId`); `workflowId` is the
 * workflow row id (`_templateId`).
 * @publicApi
 */
@Entity({ tableName: 'ntf_notification' })
@Index({ name: 'ntf_notification_environment_created_idx', properties: ['environmentId', 'createdAt', 'id'] })
@Index({ name: 'ntf_notification_transaction_idx', properties: ['environmentId', 'transactionId'] })
@Index({ name: 'ntf_notification_subscriber_idx', properties: ['environmentId', 'subscriberId', 'createdAt', 'id'] })
export class NotificationEntity extends EnvironmentScopedEntity {
  @Property({ type: 'text', fieldName: 'subscriber_id' })
  subscriberId!: string;

  @Property({ type: 'text', fieldName: 'workflow_id' })
  workflowId!: string;

  @Property({ type: 'text', fieldName: 'transaction_id' })
  transactionId!: string;

  /** Set when a digest merged this run into another notification's run. */
  @Property({ type: 'text', fieldName: 'digested_notification_id', nullable: true })
  digestedNotificationId: (string & Opt) | null = null;

  /** The step types of the run, `trigger` excluded. */
  @Property({ type: ArrayType, columnType: 'text[]' })
  channels: StepType[] & Opt = [];

  @Property({ type: 'json' })
  payload: Record<string, unknown> & Opt = {};

  /** The recipient as the trigger gave it. */
  @Property({ type: 'json', fieldName: 'to' })
  to: Record<string, unknown> & Opt = {};

  @Property({ type: ArrayType, columnType: 'text[]' })
  tags: string[] & Opt = [];

  @Property({ type: 'json', nullable: true })
  controls: (Record<string, unknown> & Opt) | null = null;

  @Property({ type: 'json', nullable: true })
  tenant: (Record<string, unknown> & Opt) | null = null;

  @Property({ type: 'json', nullable: true })
  actor: (Record<string, unknown> & Opt) | null = null;

  @Property({ type: 'json', nullable: true })
  context: (Record<string, unknown> & Opt) | null = null;

  @Property({ type: 'boolean' })
  critical: boolean & Opt = false;

  @Property({ type: 'datetime', fieldName: 'expire_at', nullable: true })
  expireAt: (Date & Opt) | null = null;
}
