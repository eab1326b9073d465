import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChannelType, JobStatus, StepType } from '../common/enums';
import type { IntegrationEntity } from '../integrations/integration.entity';
import type { MessageCta } from '../messages/message.entity';
import type { JobEntity } from '../notifications/job.entity';
import type { SubscriberEntity } from '../subscribers/subscriber.entity';
import type { StoredStep } from '../workflows/workflow-definition';
import type { DetailDraft } from './execution-log';

/** What a job's run needs of its notification. */
export interface RunNotification {
  id: string;
  to: Record<string, unknown>;
  tenant: Record<string, unknown> | null;
  actor: Record<string, unknown> | null;
  context: Record<string, unknown> | null;
  critical: boolean;
}

/** What a job's run needs of its workflow. */
export interface RunWorkflow {
  id: string;
  identifier: string;
  critical: boolean;
  preferenceSettings: Partial<Record<ChannelType, boolean>>;
  tags: string[];
  /** Stored steps, to find a code-first step's definition by position. */
  stepIds: string[];
}

/**
 * A job about to run, with everything its step reads. `job` is a plain, mutable copy of the row: the
 * runner records changes on it and writes every changed job back with one statement.
 */
export interface RunJob {
  job: JobEntity;
  step: StoredStep;
  subscriber: SubscriberEntity | null;
  notification: RunNotification;
  workflow: RunWorkflow | null;
}

/** A message a step delivered (or tried to), before it is written. */
export interface MessageDraft {
  id: string;
  channel: ChannelType;
  providerId: string | null;
  subject: string | null;
  title: string | null;
  content: string | null;
  cta: MessageCta;
  email: string | null;
  phone: string | null;
  directWebhookUrl: string | null;
  deviceTokens: string[] | null;
  status: 'sent' | 'error' | 'warning';
  errorId: string | null;
  errorText: string | null;
  providerMessageId: string | null;
}

/** How a step's run ended. */
export interface StepOutcome {
  /** `delayed`: a transient send failure, tried again at `retryAt` through the queue. */
  status: Extract<JobStatus, 'completed' | 'failed' | 'canceled' | 'skipped' | 'delayed'>;
  /** With `delayed`: when the job runs again (its `attempts` grows by one). */
  retryAt?: Date;
  details: DetailDraft[];
  message?: MessageDraft;
  /** The integration's provider, for channel steps (the job's `providerId`). */
  providerId?: string;
  error?: { message: string; raw?: unknown };
  /** Merged into the payload of the later jobs of the run (custom steps). */
  payloadPatch?: Record<string, unknown>;
  /** The run ends here: the later jobs get this status and never run. */
  halt?: Extract<JobStatus, 'canceled' | 'skipped' | 'merged'>;
  /** Digest steps: the events collected, handed to the later jobs of the run. */
  digestEvents?: Record<string, unknown>[];
}

/** What every step of one batch shares: the transaction and batch-wide look-ups. */
export interface StepBatch {
  /** The batch's transaction: every statement of the run joins it. */
  em: EntityManager;
  /** Active integrations of the batch's environments and channels, in selection order, with credentials decrypted lazily. */
  integrations(environmentId: string, channel: ChannelType): IntegrationEntity[];
}

/**
 * One kind of step. A handler gets every job of its kind in a batch at once, so that what it reads
 * from the database it reads with one statement for all of them.
 */
export interface StepHandler {
  readonly types: readonly StepType[];
  run(jobs: RunJob[], batch: StepBatch): Promise<StepOutcome[]>;
}
