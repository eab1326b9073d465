import { createHash } from 'node:crypto';
import { IsolationLevel } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, Logger } from '@nestjs/common';
import { NotificationsDatabase } from '../common/database';
import { type ChannelType, IN_HOUSE_PROVIDER_ID, type StepType } from '../common/enums';
import { RequestValidationException } from '../common/errors/validation-errors';
import { generateId } from '../common/id';
import { NotificationsQueue, type QueueEntry } from '../delivery/notifications-queue';
import { EnvironmentDirectory } from '../environments/environment-directory';
import type { SubscriberChannel } from '../subscribers/subscriber.entity';
import type { StepMetadata, StoredStep } from '../workflows/workflow-definition';
import {
  MAX_BULK_EVENTS,
  type ParsedEvent,
  type ParsedSubscriber,
  parseTriggerEvent,
  readPath,
  SUBSCRIBER_TEXT_FIELDS,
  type SubscriberFields,
  type TriggerEventInput,
  type TriggerEventResponse,
  type TriggerEventStatus,
} from './trigger-event';

/** The reference's message for a reused transactionId (reference/behavior.md §8.3). */
export const DUPLICATE_TRANSACTION_ID = 'transactionId property is not unique, please make sure all triggers have a unique transactionId';

/** Channels whose provider comes from an integration; in-app and the steps that send nothing use `novu`. */
const INTEGRATION_CHANNELS = new Set<StepType>(['email', 'sms', 'chat', 'push']);

/** The columns of a workflow the intake reads. */
interface WorkflowRow {
  id: string;
  identifier: string;
  active: boolean;
  critical: boolean;
  tags: string[];
  steps: StoredStep[];
}

interface TenantRow {
  identifier: string;
  name: string | null;
  data: Record<string, unknown> | null;
}

interface IntegrationRow {
  id: string;
  identifier: string;
  provider_id: string;
  channel: ChannelType | null;
  active: boolean;
  primary: boolean;
}

/** What the upsert writes for one subscriber: the fields given, channels with their integration ids. */
type StoredSubscriberFields = Omit<SubscriberFields, 'channels'> & { channels?: SubscriberChannel[] };

/** An event that passed every check that needs no lock: it runs unless its transactionId is taken. */
interface Candidate {
  /** Position in the request. */
  index: number;
  event: ParsedEvent;
  transactionId: string;
  workflow: WorkflowRow;
  activeSteps: StoredStep[];
  /** The tenant as stored on the notification and jobs: `{ identifier, name, data }`. */
  tenant: Record<string, unknown> | null;
  /** Channels of recipients and actor with their integration ids, by subscriberId. */
  channels: Map<string, SubscriberChannel[]>;
}

/** One `st` entry of the jobs INSERT: a step of a workflow, shared by every job of that step in the request. */
interface StepRef {
  i: number;
  type: StepType;
  step: StoredStep;
  digest: StepMetadata | null;
  provider_id: string;
}

/**
 * Accepts triggered events: decides what each event does and, for those that run, writes the whole
 * start of the run — subscribers, notifications, job chains, their first execution details and the
 * queue entries of the first jobs — in one transaction with a fixed number of set-based statements,
 * whatever the number of events and recipients (DESIGN §8). The delivery worker takes it from there.
 * @publicApi
 */
@Injectable()
export class EventsService {
  private readonly logger = new Logger(EventsService.name);

  constructor(
    private readonly db: NotificationsDatabase,
    private readonly directory: EnvironmentDirectory,
    private readonly queue: NotificationsQueue,
  ) {}

  /**
   * Triggers 1 to {@link MAX_BULK_EVENTS} events. Returns one result per event, in order; a failing
   * event never fails the call. Checks, in order: the event's shape (`error` with messages), the
   * workflow exists (`error: ["workflow_not_found"]`), the tenant exists (`no_tenant_found`), the
   * workflow is active (`trigger_not_active`), has steps (`no_workflow_steps_defined`) and an active
   * one (`no_workflow_active_steps_defined`), at least one valid recipient (`invalid_recipients`),
   * the transactionId is unused in the environment and in the request (`error`); then `processed`:
   * the rows and queue entries are committed before this resolves.
   * @throws RequestValidationException when `events` is not an array of 1 to 100 items.
   */
  async triggerBulk(environmentId: string, events: TriggerEventInput[]): Promise<TriggerEventResponse[]> {
    if (!Array.isArray(events) || events.length < 1 || events.length > MAX_BULK_EVENTS) {
      throw RequestValidationException.forField(
        'events',
        `events must be an array of 1 to ${MAX_BULK_EVENTS} elements`,
        Array.isArray(events) ? `${events.length} elements` : events,
      );
    }
    const organizationId = await this.directory.getOrganizationId(environmentId);
    const results: TriggerEventResponse[] = new Array(events.length);
    const parsed: Array<{ index: number; event: ParsedEvent; transactionId: string }> = [];
    events.forEach((raw: unknown, index) => {
      const result = parseTriggerEvent(raw);
      if (result.ok) parsed.push({ index, event: result.event, transactionId: result.event.transactionId ?? `txn_${generateId()}` });
      else results[index] = error(result.errors, result.transactionId);
    });

    const { candidates, integrations } = await this.check(environmentId, parsed, results);
    const accepted = await this.write(environmentId, organizationId, candidates, integrations, results);
    for (const candidate of accepted) {
      results[candidate.index] = { acknowledged: true, status: 'processed', transactionId: candidate.transactionId };
    }
    this.logger.debug(`Environment ${environmentId}: ${accepted.length} of ${events.length} event(s) processed`);
    return results;
  }

  /**
   * The checks that need data but no lock, with one query per kind of data: the workflows, the
   * tenants, and (when a step or a subscriber channel needs them) the integrations. Fills in the
   * result of every event that fails; returns the others, and the integrations read.
   */
  private async check(
    environmentId: string,
    parsed: Array<{ index: number; event: ParsedEvent; transactionId: string }>,
    results: TriggerEventResponse[],
  ): Promise<{ candidates: Candidate[]; integrations: IntegrationRow[] }> {
    if (parsed.length === 0) return { candidates: [], integrations: [] };
    const [workflows, tenants] = await Promise.all([
      this.loadWorkflows(environmentId, parsed.map((p) => p.event.name)),
      this.loadTenants(environmentId, parsed.flatMap((p) => (p.event.tenant ? [p.event.tenant.identifier] : []))),
    ]);
    const candidates: Candidate[] = [];
    for (const { index, event, transactionId } of parsed) {
      const fail = (status: TriggerEventStatus, messages?: string[]) => {
        results[index] = { acknowledged: true, status, ...(messages && { error: messages }), transactionId };
      };
      const workflow = workflows.get(event.name);
      if (!workflow) {
        fail('error', ['workflow_not_found']);
        continue;
      }
      const storedTenant = event.tenant ? tenants.get(event.tenant.identifier) : undefined;
      if (event.tenant && !storedTenant) {
        fail('no_tenant_found');
        continue;
      }
      const activeSteps = workflow.steps.filter((step) => step.active);
      const status: TriggerEventStatus | undefined = !workflow.active
        ? 'trigger_not_active'
        : workflow.steps.length === 0
          ? 'no_workflow_steps_defined'
          : activeSteps.length === 0
            ? 'no_workflow_active_steps_defined'
            : event.recipients.length === 0
              ? 'invalid_recipients'
              : undefined;
      if (status) {
        fail(status);
        continue;
      }
      const tenant =
        event.tenant && storedTenant
          ? { identifier: storedTenant.identifier, name: event.tenant.name ?? storedTenant.name, data: event.tenant.data ?? storedTenant.data }
          : null;
      candidates.push({ index, event, transactionId, workflow, activeSteps, tenant, channels: new Map() });
    }

    const subscribersOf = (c: Candidate) => (c.event.actor ? [c.event.actor, ...c.event.recipients] : c.event.recipients);
    const needsIntegrations = candidates.some(
      (c) => c.activeSteps.some((step) => INTEGRATION_CHANNELS.has(step.type)) || subscribersOf(c).some((s) => s.fields.channels?.length),
    );
    const integrations = needsIntegrations ? await this.loadIntegrations(environmentId) : [];
    const ready: Candidate[] = [];
    for (const candidate of candidates) {
      const problems: string[] = [];
      for (const subscriber of subscribersOf(candidate)) {
        if (!subscriber.fields.channels) continue;
        candidate.channels.set(subscriber.subscriberId, resolveChannels(subscriber, integrations, problems));
      }
      if (problems.length) results[candidate.index] = error(problems, candidate.transactionId);
      else ready.push(candidate);
    }
    return { candidates: ready, integrations };
  }

  /**
   * One transaction: claims the transactionIds, then writes every accepted event with one statement
   * per table and enqueues the first job of every chain in the same transaction. Returns the
   * candidates that were written; those whose transactionId was taken get an `error` result.
   */
  private async write(
    environmentId: string,
    organizationId: string,
    candidates: Candidate[],
    integrations: IntegrationRow[],
    results: TriggerEventResponse[],
  ): Promise<Candidate[]> {
    if (candidates.length === 0) return [];
    // Duplicates within the request: the first event with a transactionId claims it.
    const claimed = new Set<string>();
    const unique = candidates.filter((candidate) => {
      if (candidate.event.transactionId === undefined) return true;
      if (claimed.has(candidate.transactionId)) {
        results[candidate.index] = error([DUPLICATE_TRANSACTION_ID], candidate.transactionId);
        return false;
      }
      claimed.add(candidate.transactionId);
      return true;
    });
    let accepted: Candidate[] = [];
    await this.db.fork().transactional(
      async (em) => {
        const taken = await this.claimTransactionIds(environmentId, [...claimed], em);
        accepted = unique.filter((candidate) => {
          if (!taken.has(candidate.transactionId) || candidate.event.transactionId === undefined) return true;
          results[candidate.index] = error([DUPLICATE_TRANSACTION_ID], candidate.transactionId);
          return false;
        });
        if (accepted.length === 0) return;
        const subscriberRowIds = await this.upsertSubscribers(environmentId, organizationId, accepted, em);
        await this.updateTenants(environmentId, accepted, em);
        const entries = await this.insertRuns(environmentId, organizationId, accepted, subscriberRowIds, integrations, em);
        await this.queue.enqueue(entries, em);
      },
      // The transactionId check must see rows committed while this transaction waited for the lock:
      // only READ COMMITTED takes a new snapshot per statement, whatever the host's default level.
      { isolationLevel: IsolationLevel.READ_COMMITTED },
    );
    if (accepted.length) this.queue.wakeWorkers();
    return accepted;
  }

  private async loadWorkflows(environmentId: string, names: string[]): Promise<Map<string, WorkflowRow>> {
    const { rows } = await this.db.query<WorkflowRow>(
      `SELECT id, identifier, active, critical, tags, steps FROM ntf_workflow
        WHERE environment_id = $1 AND identifier = ANY($2::text[])`,
      [environmentId, [...new Set(names)]],
    );
    return new Map(rows.map((row) => [row.identifier, row]));
  }

  private async loadTenants(environmentId: string, identifiers: string[]): Promise<Map<string, TenantRow>> {
    if (identifiers.length === 0) return new Map();
    const { rows } = await this.db.query<TenantRow>(
      'SELECT identifier, name, data FROM ntf_tenant WHERE environment_id = $1 AND identifier = ANY($2::text[])',
      [environmentId, [...new Set(identifiers)]],
    );
    return new Map(rows.map((row) => [row.identifier, row]));
  }

  /** The environment's integrations, oldest first (deleted ones excluded; inactive ones kept for subscriber channels). */
  private async loadIntegrations(environmentId: string): Promise<IntegrationRow[]> {
    const { rows } = await this.db.query<IntegrationRow>(
      `SELECT id, identifier, provider_id, channel, active, "primary" FROM ntf_integration
        WHERE environment_id = $1 AND NOT deleted ORDER BY created_at, id`,
      [environmentId],
    );
    return rows;
  }

  /**
   * Locks each (environment, transactionId) pair, in a fixed order so that two requests sharing
   * several ids cannot deadlock, then returns those already used. Two statements: the check must run
   * after the locks are held, with a snapshot that sees what their previous holders committed.
   */
  private async claimTransactionIds(environmentId: string, transactionIds: string[], em: EntityManager): Promise<Set<string>> {
    if (transactionIds.length === 0) return new Set();
    await this.db.query(
      `SELECT pg_advisory_xact_lock(k.key)
         FROM (SELECT DISTINCT hashtextextended($1 || chr(31) || t, 0) AS key
                 FROM unnest($2::text[]) AS t
                ORDER BY 1) AS k`,
      [environmentId, transactionIds],
      em,
    );
    const { rows } = await this.db.query<{ transaction_id: string }>(
      'SELECT DISTINCT transaction_id FROM ntf_notification WHERE environment_id = $1 AND transaction_id = ANY($2::text[])',
      [environmentId, transactionIds],
      em,
    );
    return new Set(rows.map((row) => row.transaction_id));
  }

  /**
   * Creates or updates every recipient and actor of the request with one `INSERT … ON CONFLICT`.
   * A subscriber named several times is written once (the same key twice in one statement is an
   * error): later mentions win field by field. On conflict only the fields given change, which the
   * statement reads per row from `$5`, a JSON object of the given fields keyed by subscriberId. Rows
   * go in subscriberId order, so concurrent requests lock shared subscribers in the same order.
   * Returns our row id of each subscriberId.
   */
  private async upsertSubscribers(
    environmentId: string,
    organizationId: string,
    accepted: Candidate[],
    em: EntityManager,
  ): Promise<Map<string, string>> {
    const merged = new Map<string, StoredSubscriberFields>();
    for (const candidate of accepted) {
      const mentions = candidate.event.actor ? [candidate.event.actor, ...candidate.event.recipients] : candidate.event.recipients;
      for (const subscriber of mentions) {
        const { channels: _given, ...fields } = subscriber.fields;
        const channels = candidate.channels.get(subscriber.subscriberId);
        merged.set(subscriber.subscriberId, { ...merged.get(subscriber.subscriberId), ...fields, ...(channels && { channels }) });
      }
    }
    const subscriberIds = [...merged.keys()].sort();
    // Built by hand: a subscriberId such as "__proto__" must stay an ordinary key.
    const given = `{${subscriberIds.map((id) => `${JSON.stringify(id)}:${JSON.stringify(merged.get(id))}`).join(',')}}`;
    const givenKey = (field: string) => `($5::jsonb -> EXCLUDED.subscriber_id) ? '${field}'`;
    const keep = (column: string, field: string) => `${column} = CASE WHEN ${givenKey(field)} THEN EXCLUDED.${column} ELSE s.${column} END`;
    const textColumns = SUBSCRIBER_TEXT_FIELDS.map((field) => [snake(field), field] as const);
    const anyGiven = `($5::jsonb -> EXCLUDED.subscriber_id) ?| ARRAY[${[...SUBSCRIBER_TEXT_FIELDS, 'data', 'channels'].map((f) => `'${f}'`).join(', ')}]`;
    const { rows } = await this.db.query<{ id: string; subscriber_id: string }>(
      `INSERT INTO ntf_subscriber AS s
         (id, environment_id, organization_id, subscriber_id, ${textColumns.map(([column]) => column).join(', ')}, data, channels, created_at, updated_at)
       SELECT r.id, $1, $2, r.subscriber_id, ${textColumns.map(([, field]) => `g.f ->> '${field}'`).join(', ')},
              NULLIF(g.f -> 'data', 'null'::jsonb), COALESCE(g.f -> 'channels', '[]'::jsonb), now(), now()
         FROM unnest($3::text[], $4::text[]) AS r(id, subscriber_id)
        CROSS JOIN LATERAL (SELECT $5::jsonb -> r.subscriber_id AS f) AS g
        ORDER BY r.subscriber_id
       ON CONFLICT (environment_id, subscriber_id) DO UPDATE SET
         ${textColumns.map(([column, field]) => keep(column, field)).join(',\n         ')},
         ${keep('data', 'data')},
         ${keep('channels', 'channels')},
         deleted = false,
         version = s.version + CASE WHEN ${anyGiven} OR s.deleted THEN 1 ELSE 0 END,
         updated_at = CASE WHEN ${anyGiven} OR s.deleted THEN now() ELSE s.updated_at END
       RETURNING id, subscriber_id`,
      [environmentId, organizationId, subscriberIds.map(() => generateId()), subscriberIds, given],
      em,
    );
    return new Map(rows.map((row) => [row.subscriber_id, row.id]));
  }

  /**
   * Writes the `name` / `data` that events gave for their tenant, one statement for the request
   * (later events win field by field), locking the tenants in identifier order.
   */
  private async updateTenants(environmentId: string, accepted: Candidate[], em: EntityManager): Promise<void> {
    const updates = new Map<string, { identifier: string; name?: string; data?: Record<string, unknown> }>();
    for (const { event } of accepted) {
      const tenant = event.tenant;
      if (!tenant || (tenant.name === undefined && tenant.data === undefined)) continue;
      updates.set(tenant.identifier, { ...updates.get(tenant.identifier), ...tenant });
    }
    if (updates.size === 0) return;
    await this.db.query(
      `UPDATE ntf_tenant AS t
          SET name = CASE WHEN r.given ? 'name' THEN r.given ->> 'name' ELSE t.name END,
              data = CASE WHEN r.given ? 'data' THEN r.given -> 'data' ELSE t.data END,
              updated_at = now()
         FROM (SELECT l.id, i.given
                 FROM jsonb_array_elements($2::jsonb) AS i(given)
                 JOIN ntf_tenant l ON l.environment_id = $1 AND l.identifier = i.given ->> 'identifier'
                ORDER BY l.identifier
                  FOR UPDATE OF l) AS r
        WHERE t.id = r.id AND t.environment_id = $1`,
      [environmentId, JSON.stringify([...updates.values()])],
      em,
    );
  }

  /**
   * Inserts, for every accepted event × recipient, the notification, its job chain (the synthetic
   * `trigger` job, `queued`, then one `pending` job per active step, each the child of the previous
   * one) and each job's `Step created` line (plus `Step queued` for the trigger job): three
   * statements. Ids are generated in run order, so `ORDER BY created_at, id` gives the chain order.
   * Returns the queue entries of the trigger jobs.
   */
  private async insertRuns(
    environmentId: string,
    organizationId: string,
    accepted: Candidate[],
    subscriberRowIds: Map<string, string>,
    integrations: IntegrationRow[],
    em: EntityManager,
  ): Promise<QueueEntry[]> {
    const stepRefs = new Map<string, StepRef>();
    const stepRefOf = (workflow: WorkflowRow, step: StoredStep): StepRef => {
      const key = `${workflow.id}:${step._id}`;
      let ref = stepRefs.get(key);
      if (!ref) {
        ref = {
          i: stepRefs.size,
          type: step.type,
          step,
          digest: step.type === 'digest' ? (step.metadata ?? null) : null,
          provider_id: selectProvider(step, integrations),
        };
        stepRefs.set(key, ref);
      }
      return ref;
    };

    const events = accepted.map((c, i) => ({
      i,
      workflow_id: c.workflow.id,
      identifier: c.workflow.identifier,
      transaction_id: c.transactionId,
      channels: [...new Set(c.activeSteps.map((step) => step.type))],
      tags: c.workflow.tags ?? [],
      payload: c.event.payload,
      overrides: c.event.overrides,
      tenant: c.tenant,
      actor: c.event.actor?.given ?? null,
      actor_id: c.event.actor?.subscriberId ?? null,
      context: c.event.context,
      critical: c.workflow.critical,
    }));
    const notifications: Array<{ id: string; e: number; subscriber_id: string; to: Record<string, unknown> }> = [];
    const jobs = {
      id: [] as string[],
      event: [] as number[],
      step: [] as Array<number | null>,
      notification: [] as string[],
      subscriber: [] as string[],
      external: [] as string[],
      parent: [] as Array<string | null>,
      triggerStepId: [] as Array<string | null>,
      triggerTemplateId: [] as Array<string | null>,
      groupKey: [] as Array<string | null>,
    };
    const details = { id: [] as string[], job: [] as string[], detail: [] as string[] };
    const entries: QueueEntry[] = [];

    accepted.forEach((candidate, e) => {
      const refs = candidate.activeSteps.map((step) => stepRefOf(candidate.workflow, step));
      for (const recipient of candidate.event.recipients) {
        const subscriberRowId = subscriberRowIds.get(recipient.subscriberId);
        if (!subscriberRowId) throw new Error(`Subscriber "${recipient.subscriberId}" was not upserted`);
        const notificationId = generateId();
        notifications.push({ id: notificationId, e, subscriber_id: subscriberRowId, to: recipient.given });
        const chain = [generateId(), ...refs.map(() => generateId())];
        chain.forEach((jobId, k) => {
          const ref = k === 0 ? null : refs[k - 1];
          jobs.id.push(jobId);
          jobs.event.push(e);
          jobs.step.push(ref ? ref.i : null);
          jobs.notification.push(notificationId);
          jobs.subscriber.push(subscriberRowId);
          jobs.external.push(recipient.subscriberId);
          jobs.parent.push(k === 0 ? null : chain[k - 1]);
          jobs.triggerStepId.push(ref ? null : generateId());
          jobs.triggerTemplateId.push(ref ? null : generateId());
          jobs.groupKey.push(ref ? groupKeyOf(ref.step, candidate.event.payload) : null);
        });
        for (const jobId of chain) {
          details.id.push(generateId());
          details.job.push(jobId);
          details.detail.push('Step created');
          if (jobId === chain[0]) {
            details.id.push(generateId());
            details.job.push(jobId);
            details.detail.push('Step queued');
          }
        }
        entries.push({ environmentId, jobId: chain[0] });
      }
    });

    const eventsJson = JSON.stringify(events);
    await this.db.query(
      `WITH ev AS (
         SELECT e.i, e.workflow_id, e.transaction_id, e.payload, e.tenant, e.actor, e.context, e.critical,
                ARRAY(SELECT jsonb_array_elements_text(e.channels)) AS channels,
                ARRAY(SELECT jsonb_array_elements_text(e.tags)) AS tags
           FROM jsonb_to_recordset($3::jsonb) AS e(i int, workflow_id text, transaction_id text, payload jsonb, tenant jsonb,
                actor jsonb, context jsonb, critical boolean, channels jsonb, tags jsonb)
       )
       INSERT INTO ntf_notification (id, environment_id, organization_id, created_at, updated_at, subscriber_id, workflow_id,
         transaction_id, digested_notification_id, channels, payload, "to", tags, controls, tenant, actor, context, critical, expire_at)
       SELECT r.id, $1, $2, now(), now(), r.subscriber_id, ev.workflow_id,
              ev.transaction_id, NULL, ev.channels, ev.payload, r."to", ev.tags, NULL, ev.tenant, ev.actor, ev.context, ev.critical, NULL
         FROM jsonb_to_recordset($4::jsonb) AS r(id text, e int, subscriber_id text, "to" jsonb)
         JOIN ev ON ev.i = r.e`,
      [environmentId, organizationId, eventsJson, JSON.stringify(notifications)],
      em,
    );
    await this.db.query(
      `WITH ev AS (
         SELECT * FROM jsonb_to_recordset($3::jsonb) AS e(i int, workflow_id text, identifier text, transaction_id text,
                payload jsonb, overrides jsonb, tenant jsonb, actor_id text)
       ), st AS (
         SELECT * FROM jsonb_to_recordset($4::jsonb) AS s(i int, type text, step jsonb, digest jsonb, provider_id text)
       ), inserted_jobs AS (
       INSERT INTO ntf_job (id, environment_id, organization_id, created_at, updated_at, notification_id, subscriber_id,
         external_subscriber_id, workflow_id, identifier, transaction_id, parent_id, type, status, step, digest, payload,
         overrides, tenant, actor_id, provider_id, error, group_key, merged_digest_id, expire_at)
       SELECT j.id, $1, $2, now(), now(), j.notification_id, j.subscriber_id,
              j.external_subscriber_id, ev.workflow_id, ev.identifier, ev.transaction_id, j.parent_id,
              COALESCE(st.type, 'trigger'),
              CASE WHEN st.i IS NULL THEN 'queued' ELSE 'pending' END,
              COALESCE(st.step, jsonb_build_object('_id', j.trigger_step_id, '_templateId', j.trigger_template_id, 'type', 'trigger',
                'active', true, 'filters', '[]'::jsonb, 'name', 'trigger')),
              st.digest, ev.payload, ev.overrides, ev.tenant, ev.actor_id, COALESCE(st.provider_id, $15), NULL, j.group_key, NULL, NULL
         FROM unnest($5::text[], $6::int[], $7::int[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[])
              AS j(id, e, st, notification_id, subscriber_id, external_subscriber_id, parent_id, trigger_step_id, trigger_template_id, group_key)
         JOIN ev ON ev.i = j.e
         LEFT JOIN st ON st.i = j.st
       RETURNING id, environment_id, organization_id, notification_id, workflow_id, subscriber_id, external_subscriber_id, transaction_id, type
       )
       -- The lines' other columns are their job's, taken from the rows just inserted: one statement for both
       -- tables, and no look-up of ntf_job (which the planner may scan as a whole when it grows).
       INSERT INTO ntf_execution_detail (id, environment_id, organization_id, created_at, updated_at, job_id, notification_id,
         workflow_id, subscriber_id, external_subscriber_id, message_id, provider_id, transaction_id, channel, detail, source,
         status, is_test, is_retry, raw, webhook_status)
       SELECT d.id, j.environment_id, j.organization_id, now(), now(), j.id, j.notification_id,
              j.workflow_id, j.subscriber_id, j.external_subscriber_id, NULL, NULL, j.transaction_id, j.type, d.detail, 'Internal',
              'Pending', false, false, NULL, NULL
         FROM unnest($16::text[], $17::text[], $18::text[]) AS d(id, job_id, detail)
         JOIN inserted_jobs j ON j.id = d.job_id`,
      [
        environmentId,
        organizationId,
        eventsJson,
        JSON.stringify([...stepRefs.values()]),
        jobs.id,
        jobs.event,
        jobs.step,
        jobs.notification,
        jobs.subscriber,
        jobs.external,
        jobs.parent,
        jobs.triggerStepId,
        jobs.triggerTemplateId,
        jobs.groupKey,
        IN_HOUSE_PROVIDER_ID,
        details.id,
        details.job,
        details.detail,
      ],
      em,
    );
    return entries;
  }
}

function error(messages: string[], transactionId?: string): TriggerEventResponse {
  return { acknowledged: true, status: 'error', error: messages, ...(transactionId !== undefined && { transactionId }) };
}

function snake(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * The provider a job will most likely deliver through, so the job carries a contract provider id
 * from the start (DESIGN §7); the worker selects again when it runs. For email, SMS, chat and push:
 * the step's own integration when active, else the channel's primary active one, else its oldest
 * active one, else `novu`. Everything else: `novu`.
 */
function selectProvider(step: StoredStep, integrations: IntegrationRow[]): string {
  if (!INTEGRATION_CHANNELS.has(step.type)) return IN_HOUSE_PROVIDER_ID;
  const active = integrations.filter((integration) => integration.active && integration.channel === step.type);
  const named = step.integrationIdentifier ? active.find((integration) => integration.identifier === step.integrationIdentifier) : undefined;
  return (named ?? active.find((integration) => integration.primary) ?? active[0])?.provider_id ?? IN_HOUSE_PROVIDER_ID;
}

/**
 * Longest group key stored as is. `group_key` is in a B-tree index, whose entries hold at most about
 * 2.7 kB: a longer payload value would fail the whole request's INSERT (a 500).
 */
const MAX_GROUP_KEY_LENGTH = 255;

/**
 * Digest and throttle jobs: the payload value of the step's key (`''` without a key or a value). Keys
 * are only compared for equality, so a value longer than {@link MAX_GROUP_KEY_LENGTH} is stored as
 * its SHA-256 instead.
 */
function groupKeyOf(step: StoredStep, payload: Record<string, unknown>): string | null {
  const path = step.type === 'digest' ? step.metadata?.digestKey : step.type === 'throttle' ? step.metadata?.throttleKey : null;
  if (path === null) return null;
  if (!path) return '';
  const value = readPath(payload, path);
  const key = value === undefined || value === null ? '' : String(value);
  return key.length > MAX_GROUP_KEY_LENGTH ? `sha256:${createHash('sha256').update(key).digest('hex')}` : key;
}

/**
 * Gives each channel of a subscriber its integration id, as SubscribersService does: the given
 * `integrationId` if it exists in the environment, else the integration with the given identifier,
 * else one of the provider (primary first, then active, then oldest). Unknown ones are reported.
 */
function resolveChannels(subscriber: ParsedSubscriber, integrations: IntegrationRow[], problems: string[]): SubscriberChannel[] {
  const ranked = [...integrations].sort((a, b) => Number(b.primary) - Number(a.primary) || Number(b.active) - Number(a.active));
  const resolved: SubscriberChannel[] = [];
  (subscriber.fields.channels ?? []).forEach((channel, index) => {
    const integration = channel.integrationId
      ? integrations.find((row) => row.id === channel.integrationId)
      : ranked.find(
          (row) => row.provider_id === channel.providerId && (channel.integrationIdentifier === undefined || row.identifier === channel.integrationIdentifier),
        );
    if (!integration) {
      const which = channel.integrationId
        ? `with id "${channel.integrationId}"`
        : `of provider "${channel.providerId}"${channel.integrationIdentifier !== undefined ? ` with identifier "${channel.integrationIdentifier}"` : ''}`;
      problems.push(`${subscriber.path}.channels[${index}]: no integration ${which} exists in this environment`);
      return;
    }
    resolved.push({
      providerId: channel.providerId,
      ...(channel.integrationIdentifier !== undefined && { integrationIdentifier: channel.integrationIdentifier }),
      integrationId: integration.id,
      credentials: channel.credentials ?? {},
    });
  });
  return resolved;
}
