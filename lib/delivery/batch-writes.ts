import type { EntityManager } from '@mikro-orm/postgresql';
import { NotificationsDatabase } from '../common/database';
import { generateId } from '../common/id';
import type { JobEntity } from '../notifications/job.entity';
import type { DetailDraft } from './execution-log';
import type { QueueEntry } from './notifications-queue';
import type { MessageDraft, RunJob } from './run-context';

/** A run-level change: applied to every job of the notification that has not run yet. */
interface RunChange {
  payloadPatch?: Record<string, unknown>;
  digestEvents?: Record<string, unknown>[];
  halt?: string;
}

/**
 * Everything one batch writes, collected while its steps run and written at the end with one
 * statement per table (DESIGN §8: no per-row round trips), inside the batch's transaction.
 */
export class BatchWrites {
  private readonly details: Array<{ run: RunJob; draft: DetailDraft }> = [];
  private readonly messages: Array<{ run: RunJob; draft: MessageDraft }> = [];
  private readonly jobs = new Map<string, JobEntity>();
  private readonly runChanges = new Map<string, RunChange & { environmentId: string }>();
  private readonly digested = new Map<string, { environmentId: string; digestedNotificationId: string }>();
  readonly queue: QueueEntry[] = [];

  constructor(private readonly db: NotificationsDatabase) {}

  /** Log lines of a job, in the order given. */
  addDetails(run: RunJob, drafts: DetailDraft[]): void {
    for (const draft of drafts) this.details.push({ run, draft });
  }

  addMessage(run: RunJob, draft: MessageDraft): void {
    this.messages.push({ run, draft });
  }

  /** The job (a plain copy of its row, already changed) is written back with the batch. */
  touchJob(job: JobEntity): void {
    this.jobs.set(job.id, job);
  }

  /** Changes every job of the run that is still `pending` (the ones after the current job). */
  changeRun(run: RunJob, change: RunChange): void {
    const current = this.runChanges.get(run.job.notificationId) ?? { environmentId: run.job.environmentId };
    if (change.payloadPatch) current.payloadPatch = { ...current.payloadPatch, ...change.payloadPatch };
    if (change.digestEvents) current.digestEvents = change.digestEvents;
    if (change.halt) current.halt = change.halt;
    this.runChanges.set(run.job.notificationId, current);
  }

  /** The run's notification was merged into another run's digest. */
  markDigested(run: RunJob, digestedNotificationId: string): void {
    this.digested.set(run.job.notificationId, { environmentId: run.job.environmentId, digestedNotificationId });
  }

  /** Pending run changes of a notification, to apply to its jobs loaded later in the same batch. */
  pendingChange(notificationId: string): RunChange | undefined {
    return this.runChanges.get(notificationId);
  }

  async flush(em: EntityManager): Promise<void> {
    await this.writeRunChanges(em);
    await this.writeJobs(em);
    const messageIds = await this.writeMessages(em);
    await this.writeDetails(em, messageIds);
    await this.writeNotifications(em);
  }

  /** @param messageIds The stored id of each drafted message (a retry's draft maps to the first try's message). */
  private async writeDetails(em: EntityManager, messageIds: Map<string, string>): Promise<void> {
    if (!this.details.length) return;
    const rows = this.details.map(({ run, draft }) => ({
      id: generateId(),
      job_id: run.job.id,
      notification_id: run.job.notificationId,
      workflow_id: run.job.workflowId,
      subscriber_id: run.job.subscriberId,
      external_subscriber_id: run.job.externalSubscriberId,
      environment_id: run.job.environmentId,
      organization_id: run.job.organizationId,
      transaction_id: run.job.transactionId,
      channel: run.job.type,
      detail: draft.detail,
      status: draft.status,
      source: draft.source ?? 'Internal',
      provider_id: draft.providerId ?? null,
      message_id: draft.messageId ? (messageIds.get(draft.messageId) ?? draft.messageId) : null,
      is_retry: draft.isRetry ?? false,
      raw: draft.raw === undefined || draft.raw === null ? null : JSON.stringify(draft.raw),
    }));
    // clock_timestamp(): a batch runs several steps of a run one after the other; their lines keep
    // that order by time as well as by id.
    await this.db.query(
      `INSERT INTO ntf_execution_detail (id, job_id, notification_id, workflow_id, subscriber_id, external_subscriber_id, environment_id,
                                        organization_id, transaction_id, channel, detail, status, source, provider_id, message_id, raw,
                                        is_test, is_retry, created_at, updated_at)
       SELECT r.id, r.job_id, r.notification_id, r.workflow_id, r.subscriber_id, r.external_subscriber_id, r.environment_id,
              r.organization_id, r.transaction_id, r.channel, r.detail, r.status, r.source, r.provider_id, r.message_id, r.raw,
              false, r.is_retry, clock_timestamp(), clock_timestamp()
         FROM jsonb_to_recordset($1::jsonb) AS r(id text, job_id text, notification_id text, workflow_id text, subscriber_id text,
              external_subscriber_id text, environment_id text, organization_id text, transaction_id text, channel text, detail text,
              status text, source text, provider_id text, message_id text, is_retry boolean, raw text)`,
      [JSON.stringify(rows)],
      em,
    );
  }

  /** Returns the stored id of each draft (see the conflict clause). */
  private async writeMessages(em: EntityManager): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    if (!this.messages.length) return ids;
    const rows = this.messages.map(({ run, draft }) => ({
      id: draft.id,
      environment_id: run.job.environmentId,
      organization_id: run.job.organizationId,
      notification_id: run.job.notificationId,
      subscriber_id: run.job.subscriberId,
      job_id: run.job.id,
      workflow_id: run.job.workflowId,
      message_template_id: run.step._templateId,
      template_identifier: run.job.identifier,
      transaction_id: run.job.transactionId,
      channel: draft.channel,
      provider_id: draft.providerId,
      subject: draft.subject,
      title: draft.title,
      content: draft.content === null ? null : draft.content,
      cta: draft.cta,
      payload: run.job.payload,
      overrides: run.job.overrides,
      email: draft.email,
      phone: draft.phone,
      direct_webhook_url: draft.directWebhookUrl,
      device_tokens: draft.deviceTokens,
      status: draft.status,
      error_id: draft.errorId,
      error_text: draft.errorText,
      provider_message_id: draft.providerMessageId,
      tags: run.workflow?.tags ?? [],
      context_keys: contextKeys(run.notification.context),
    }));
    // One message per job (ON CONFLICT (job_id)): a retry of a transient send failure updates the
    // first try's message with the new outcome instead of adding one; RETURNING gives its id back
    // for the retry's log lines.
    const { rows: stored } = await this.db.query<{ id: string; job_id: string }>(
      `INSERT INTO ntf_message (id, environment_id, organization_id, notification_id, subscriber_id, job_id, workflow_id, message_template_id,
                                template_identifier, transaction_id, channel, provider_id, subject, title, content, cta, payload, overrides,
                                email, phone, direct_webhook_url, device_tokens, status, error_id, error_text, provider_message_id, tags,
                                context_keys, created_at, updated_at)
       SELECT r.id, r.environment_id, r.organization_id, r.notification_id, r.subscriber_id, r.job_id, r.workflow_id, r.message_template_id,
              r.template_identifier, r.transaction_id, r.channel, r.provider_id, r.subject, r.title, r.content, r.cta, r.payload, r.overrides,
              r.email, r.phone, r.direct_webhook_url, r.device_tokens, r.status, r.error_id, r.error_text, r.provider_message_id,
              coalesce(r.tags, '{}'), coalesce(r.context_keys, '{}'), clock_timestamp(), clock_timestamp()
         FROM jsonb_to_recordset($1::jsonb) AS r(id text, environment_id text, organization_id text, notification_id text, subscriber_id text,
              job_id text, workflow_id text, message_template_id text, template_identifier text, transaction_id text, channel text,
              provider_id text, subject text, title text, content jsonb, cta jsonb, payload jsonb, overrides jsonb, email text, phone text,
              direct_webhook_url text, device_tokens text[], status text, error_id text, error_text text, provider_message_id text,
              tags text[], context_keys text[])
       ON CONFLICT (job_id) DO UPDATE
          SET status = excluded.status, error_id = excluded.error_id, error_text = excluded.error_text,
              provider_message_id = excluded.provider_message_id, updated_at = excluded.updated_at
       RETURNING id, job_id`,
      [JSON.stringify(rows)],
      em,
    );
    const storedByJob = new Map(stored.map((row) => [row.job_id, row.id]));
    for (const { run, draft } of this.messages) ids.set(draft.id, storedByJob.get(run.job.id) ?? draft.id);
    return ids;
  }

  private async writeJobs(em: EntityManager): Promise<void> {
    if (!this.jobs.size) return;
    const rows = [...this.jobs.values()].map((job) => ({
      id: job.id,
      environment_id: job.environmentId,
      status: job.status,
      provider_id: job.providerId,
      payload: job.payload,
      digest: job.digest,
      error: job.error,
      merged_digest_id: job.mergedDigestId,
      attempts: job.attempts,
    }));
    await this.db.query(
      `UPDATE ntf_job j
          SET status = r.status, provider_id = r.provider_id, payload = r.payload, digest = r.digest, error = r.error,
              merged_digest_id = r.merged_digest_id, attempts = r.attempts, updated_at = clock_timestamp()
         FROM jsonb_to_recordset($1::jsonb) AS r(id text, environment_id text, status text, provider_id text, payload jsonb, digest jsonb,
              error jsonb, merged_digest_id text, attempts integer)
        WHERE j.id = r.id AND j.environment_id = r.environment_id`,
      [JSON.stringify(rows)],
      em,
    );
  }

  private async writeRunChanges(em: EntityManager): Promise<void> {
    if (!this.runChanges.size) return;
    const rows = [...this.runChanges.entries()].map(([notificationId, change]) => ({
      notification_id: notificationId,
      environment_id: change.environmentId,
      patch: change.payloadPatch ?? null,
      events: change.digestEvents ?? null,
      halt: change.halt ?? null,
    }));
    // Jobs the batch itself touches are written after this with their full values, so only the
    // ones still waiting (`pending`) are changed here.
    await this.db.query(
      `UPDATE ntf_job j
          SET payload = CASE WHEN r.patch IS NULL THEN j.payload ELSE j.payload || r.patch END,
              digest = CASE WHEN r.events IS NULL THEN j.digest ELSE coalesce(j.digest, '{}'::jsonb) || jsonb_build_object('events', r.events) END,
              status = coalesce(r.halt, j.status),
              updated_at = clock_timestamp()
         FROM jsonb_to_recordset($1::jsonb) AS r(notification_id text, environment_id text, patch jsonb, events jsonb, halt text)
        WHERE j.notification_id = r.notification_id AND j.environment_id = r.environment_id AND j.status = 'pending'`,
      [JSON.stringify(rows)],
      em,
    );
  }

  private async writeNotifications(em: EntityManager): Promise<void> {
    if (!this.digested.size) return;
    await this.db.query(
      `UPDATE ntf_notification n SET digested_notification_id = r.digested, updated_at = clock_timestamp()
         FROM unnest($1::text[], $2::text[], $3::text[]) AS r(id, environment_id, digested)
        WHERE n.id = r.id AND n.environment_id = r.environment_id`,
      [[...this.digested.keys()], [...this.digested.values()].map((d) => d.environmentId), [...this.digested.values()].map((d) => d.digestedNotificationId)],
      em,
    );
  }
}

/** A trigger's `context` as message context keys (`type:id`, sorted), like channel connections store them. */
export function contextKeys(context: Record<string, unknown> | null): string[] {
  if (!context) return [];
  return Object.entries(context)
    .map(([type, value]) => {
      const id = typeof value === 'string' ? value : (value as { id?: unknown } | null)?.id;
      return typeof id === 'string' ? `${type}:${id}` : null;
    })
    .filter((key): key is string => key !== null)
    .sort();
}
