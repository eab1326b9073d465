import { Entity, Index, type Opt, Property } from '@mikro-orm/core';
import { EnvironmentScopedEntity } from '../common/base.entity';
import type { JobStatus, StepType } from '../common/enums';
import type { StepMetadata, StoredStep } from '../workflows/workflow-definition';

/**
 * One step of one notification. A notification's jobs form a chain through `parentId`; the first is
 * the synthetic `trigger` job. `step` is a snapshot of the workflow step at trigger time.
 * @publicApi
 */
@Entity({ tableName: 'ntf_job' })
@Index({ name: 'ntf_job_notification_idx', properties: ['notificationId', 'createdAt', 'id'] })
@Index({ name: 'ntf_job_transaction_idx', properties: ['environmentId', 'transactionId'] })
@Index({ name: 'ntf_job_parent_idx', properties: ['parentId'] })
@Index({
  name: 'ntf_job_group_idx',
  expression:
    'create index "ntf_job_group_idx" on "ntf_job" ("environment_id", "workflow_id", "subscriber_id", "type", "group_key", "created_at") where "group_key" is not null',
})
@Index({
  name: 'ntf_job_merged_digest_idx',
  expression: 'create index "ntf_job_merged_digest_idx" on "ntf_job" ("merged_digest_id") where "merged_digest_id" is not null',
})
export class JobEntity extends EnvironmentScopedEntity {
  @Property({ type: 'text', fieldName: 'notification_id' })
  notificationId!: string;

  /** Our subscriber row id. */
  @Property({ type: 'text', fieldName: 'subscriber_id' })
  subscriberId!: string;

  /** The caller's subscriber identifier. */
  @Property({ type: 'text', fieldName: 'external_subscriber_id' })
  externalSubscriberId!: string;

  @Property({ type: 'text', fieldName: 'workflow_id' })
  workflowId!: string;

  /** The trigger identifier of the workflow. */
  @Property({ type: 'text' })
  identifier!: string;

  @Property({ type: 'text', fieldName: 'transaction_id' })
  transactionId!: string;

  @Property({ type: 'text', fieldName: 'parent_id', nullable: true })
  parentId: (string & Opt) | null = null;

  @Property({ type: 'text' })
  type!: StepType;

  @Property({ type: 'text' })
  status: JobStatus & Opt = 'pending';

  @Property({ type: 'json' })
  step!: StoredStep | { _id: string; _templateId: string; type: 'trigger'; active: boolean; filters: [] };

  @Property({ type: 'json', nullable: true })
  digest: (StepMetadata & { events?: Record<string, unknown>[] } & Opt) | null = null;

  @Property({ type: 'json' })
  payload: Record<string, unknown> & Opt = {};

  @Property({ type: 'json' })
  overrides: Record<string, unknown> & Opt = {};

  @Property({ type: 'json', nullable: true })
  tenant: (Record<string, unknown> & Opt) | null = null;

  @Property({ type: 'text', fieldName: 'actor_id', nullable: true })
  actorId: (string & Opt) | null = null;

  /** The provider the job delivers through; never null once the job is created (DESIGN §7). */
  @Property({ type: 'text', fieldName: 'provider_id' })
  providerId!: string;

  @Property({ type: 'json', nullable: true })
  error: (Record<string, unknown> & Opt) | null = null;

  /** Retries so far of a send that failed transiently (0 until the first retry). */
  @Property({ type: 'integer', default: 0 })
  attempts: number & Opt = 0;

  /**
   * Digest and throttle jobs: the value of the step's `digestKey` / `throttleKey` in the payload
   * (`''` when the step has no key). Events with the same value are digested or throttled together.
   */
  @Property({ type: 'text', fieldName: 'group_key', nullable: true })
  groupKey: (string & Opt) | null = null;

  @Property({ type: 'text', fieldName: 'merged_digest_id', nullable: true })
  mergedDigestId: (string & Opt) | null = null;

  @Property({ type: 'datetime', fieldName: 'expire_at', nullable: true })
  expireAt: (Date & Opt) | null = null;
}
