import { Entity, Index, type Opt, Property } from '@mikro-orm/core';
import { EnvironmentScopedEntity } from '../common/base.entity';
import type { ExecutionDetailSource, ExecutionDetailStatus, StepType } from '../common/enums';

/**
 * One line of a job's execution log ("Step created", "Message sent", ...). Append-only.
 * @publicApi
 */
@Entity({ tableName: 'ntf_execution_detail' })
@Index({ name: 'ntf_execution_detail_job_idx', properties: ['jobId', 'createdAt', 'id'] })
@Index({ name: 'ntf_execution_detail_notification_idx', properties: ['notificationId', 'createdAt', 'id'] })
export class ExecutionDetailEntity extends EnvironmentScopedEntity {
  @Property({ type: 'text', fieldName: 'job_id' })
  jobId!: string;

  @Property({ type: 'text', fieldName: 'notification_id' })
  notificationId!: string;

  @Property({ type: 'text', fieldName: 'workflow_id' })
  workflowId!: string;

  @Property({ type: 'text', fieldName: 'subscriber_id' })
  subscriberId!: string;

  @Property({ type: 'text', fieldName: 'external_subscriber_id' })
  externalSubscriberId!: string;

  @Property({ type: 'text', fieldName: 'message_id', nullable: true })
  messageId: (string & Opt) | null = null;

  @Property({ type: 'text', fieldName: 'provider_id', nullable: true })
  providerId: (string & Opt) | null = null;

  @Property({ type: 'text', fieldName: 'transaction_id' })
  transactionId!: string;

  /** The job's step type. */
  @Property({ type: 'text' })
  channel!: StepType;

  @Property({ type: 'text' })
  detail!: string;

  @Property({ type: 'text' })
  source: ExecutionDetailSource & Opt = 'Internal';

  @Property({ type: 'text' })
  status!: ExecutionDetailStatus;

  @Property({ type: 'boolean', fieldName: 'is_test' })
  isTest: boolean & Opt = false;

  @Property({ type: 'boolean', fieldName: 'is_retry' })
  isRetry: boolean & Opt = false;

  /** A JSON string with the context of the line (provider response, filter, delay), or null. */
  @Property({ type: 'text', nullable: true })
  raw: (string & Opt) | null = null;

  @Property({ type: 'text', fieldName: 'webhook_status', nullable: true })
  webhookStatus: (string & Opt) | null = null;
}
