import { Injectable, NotFoundException } from '@nestjs/common';
import { NotificationsDatabase } from '../common/database';
import { CHANNEL_TYPES, type ChannelType } from '../common/enums';
import { MESSAGES } from '../common/errors/messages';
import type { FieldErrors } from '../common/errors/validation-errors';
import { type ResolvedPage, resolvePage, resolveStringList, SqlParams, throwIfInvalid } from '../common/query-params';
import type { SubscriberEntity } from '../subscribers/subscriber.entity';
import type { WorkflowEntity } from '../workflows/workflow.entity';
import { ExecutionDetailEntity } from './execution-detail.entity';
import { JobEntity } from './job.entity';
import { NotificationEntity } from './notification.entity';

/** What a notification shows of its subscriber. */
export type NotificationSubscriberSummary = Pick<SubscriberEntity, 'id' | 'subscriberId' | 'firstName' | 'lastName' | 'email' | 'phone'>;

/** What a notification shows of its workflow. */
export type NotificationWorkflowSummary = Pick<WorkflowEntity, 'id' | 'name' | 'identifier'>;

/** A notification with everything `GET /v1/notifications/{notificationId}` shows. */
export interface NotificationActivity {
  notification: NotificationEntity;
  /** Null when the subscriber no longer exists (deleted). */
  subscriber: NotificationSubscriberSummary | null;
  /** Null when the workflow no longer exists. */
  workflow: NotificationWorkflowSummary | null;
  /** The jobs of the run, the synthetic `trigger` job excluded, oldest first. */
  jobs: JobEntity[];
  /** The execution details of those jobs, oldest first. */
  executionDetails: ExecutionDetailEntity[];
}

/**
 * The statements {@link NotificationsService.findOne} runs, `$1` the notification id and `$2` the
 * environment id. Exported (not publicly) so that the HTTP benchmark's raw baseline runs exactly these.
 *
 * Three statements whatever the number of jobs: the notification joined with its subscriber and
 * workflow (each join pinned to the same environment), then all its jobs, then all their execution
 * details. Both lists come in the order the response needs, straight off the
 * `(notification_id, created_at, id)` indexes.
 */
export const FIND_NOTIFICATION_SQL = {
  notification: `SELECT n.*,
         s.id AS s_id, s.subscriber_id AS s_subscriber_id, s.first_name AS s_first_name, s.last_name AS s_last_name,
         s.email AS s_email, s.phone AS s_phone,
         w.id AS w_id, w.name AS w_name, w.identifier AS w_identifier
    FROM ntf_notification n
    LEFT JOIN ntf_subscriber s ON s.id = n.subscriber_id AND s.environment_id = $2 AND NOT s.deleted
    LEFT JOIN ntf_workflow w ON w.id = n.workflow_id AND w.environment_id = $2
   WHERE n.id = $1 AND n.environment_id = $2`,
  jobs: `SELECT * FROM ntf_job
   WHERE notification_id = $1 AND environment_id = $2 AND type <> 'trigger'
   ORDER BY created_at, id`,
  // The trigger job's lines are filtered out here rather than dropped after the fact.
  executionDetails: `SELECT * FROM ntf_execution_detail
   WHERE notification_id = $1 AND environment_id = $2 AND channel <> 'trigger'
   ORDER BY created_at, id`,
} as const;

/** Page size of {@link NotificationsService.list} when the caller gives none. */
export const DEFAULT_NOTIFICATIONS_LIMIT = 10;
/** Largest page of {@link NotificationsService.list} (the contract's maximum). */
export const MAX_NOTIFICATIONS_LIMIT = 50;

/**
 * What {@link NotificationsService.list} is asked for; every field is optional. Filters combine with
 * AND; the values of one array filter combine with OR.
 */
export interface ListNotificationsQuery {
  /** From 0. @default 0 */
  page?: number;
  /** 1..50. @default 10 */
  limit?: number;
  transactionId?: string;
  /** The caller's subscriber identifiers (`subscriberId`), not our row ids. */
  subscriberIds?: string | string[];
  /** Notifications whose run has a step on any of these channels. */
  channels?: ChannelType | ChannelType[];
  /** Workflow ids (`_templateId`). */
  templates?: string | string[];
  /** Emails of the subscribers. */
  emails?: string | string[];
  /**
   * Exact set of context keys (`type:id`), in any order; `['']` (or `[]`) selects the notifications
   * triggered without context.
   */
  contextKeys?: string | string[];
  /** Created at or after this instant (an ISO-8601 string or a Date). */
  after?: string | Date;
  /** Created at or before this instant (an ISO-8601 string or a Date). */
  before?: string | Date;
}

/** A page of {@link NotificationsService.list}. */
export interface NotificationActivitiesPage {
  data: NotificationActivity[];
  /** Whether at least one notification follows this page. */
  hasMore: boolean;
  page: number;
  /** The limit applied. */
  pageSize: number;
}

/** A row of {@link FIND_NOTIFICATION_SQL.notification}: the notification's columns plus the joined ones. */
interface NotificationRow {
  s_id: string | null;
  s_subscriber_id: string | null;
  s_first_name: string | null;
  s_last_name: string | null;
  s_email: string | null;
  s_phone: string | null;
  w_id: string | null;
  w_name: string | null;
  w_identifier: string | null;
  [column: string]: unknown;
}

/**
 * Notifications: one run of a workflow for one subscriber, with its jobs and execution logs.
 * @publicApi
 */
@Injectable()
export class NotificationsService {
  constructor(private readonly db: NotificationsDatabase) {}

  /**
   * The notification with its subscriber, workflow, jobs and execution details, in three statements
   * however many jobs it has.
   * @throws NotFoundException `Notification not found` when there is no such notification in the environment.
   */
  async findOne(environmentId: string, notificationId: string): Promise<NotificationActivity> {
    const params = [notificationId, environmentId];
    const { rows } = await this.db.query<NotificationRow>(FIND_NOTIFICATION_SQL.notification, params);
    if (!rows[0]) throw new NotFoundException(MESSAGES.notificationNotFound);
    // Jobs and details do not depend on each other: fetch them side by side.
    const [jobs, details] = await Promise.all([
      this.db.query(FIND_NOTIFICATION_SQL.jobs, params),
      this.db.query(FIND_NOTIFICATION_SQL.executionDetails, params),
    ]);
    return this.toActivity(rows[0], this.db.read(JobEntity, jobs.rows), this.db.read(ExecutionDetailEntity, details.rows));
  }

  /**
   * A page of the environment's notifications, newest first (`created_at DESC, id DESC`), each with
   * what {@link findOne} gives. Three statements per page whatever its size: the page (`limit + 1`
   * rows, the extra one telling whether more follow) joined with subscribers and workflows, then all
   * the page's jobs, then all their execution details — never a statement per notification.
   * @throws RequestValidationException for a page or limit out of range, an unknown channel, a
   * malformed date, or a filter of the wrong type.
   */
  async list(environmentId: string, query: ListNotificationsQuery = {}): Promise<NotificationActivitiesPage> {
    const q = resolveListQuery(query);
    const { text, values } = buildListStatement(environmentId, q);
    const { rows } = await this.db.query<NotificationRow>(text, values);
    const hasMore = rows.length > q.limit;
    const pageRows = hasMore ? rows.slice(0, q.limit) : rows;
    const base = { hasMore, page: q.page, pageSize: q.limit };
    if (!pageRows.length) return { ...base, data: [] };

    const ids = pageRows.map((row) => row.id as string);
    const [jobs, details] = await Promise.all([
      this.db.query(LIST_NOTIFICATIONS_SQL.jobs, [ids, environmentId]),
      this.db.query(LIST_NOTIFICATIONS_SQL.executionDetails, [ids, environmentId]),
    ]);
    // Both lists come oldest first; grouping keeps that order within each notification.
    const jobsOf = groupBy(this.db.read(JobEntity, jobs.rows), (job) => job.notificationId);
    const detailsOf = groupBy(this.db.read(ExecutionDetailEntity, details.rows), (detail) => detail.notificationId);
    return {
      ...base,
      data: pageRows.map((row) => this.toActivity(row, jobsOf.get(row.id as string) ?? [], detailsOf.get(row.id as string) ?? [])),
    };
  }

  /** A notification row with its joined columns, plus its jobs and details, as a {@link NotificationActivity}. */
  private toActivity(row: NotificationRow, jobs: JobEntity[], executionDetails: ExecutionDetailEntity[]): NotificationActivity {
    const { s_id, s_subscriber_id, s_first_name, s_last_name, s_email, s_phone, w_id, w_name, w_identifier, ...notificationRow } = row;
    // Read-only entities (no identity map): these routes turn them straight into a response.
    return {
      notification: this.db.read(NotificationEntity, [notificationRow])[0],
      subscriber:
        s_id && s_subscriber_id
          ? { id: s_id, subscriberId: s_subscriber_id, firstName: s_first_name, lastName: s_last_name, email: s_email, phone: s_phone }
          : null,
      workflow: w_id && w_name !== null && w_identifier !== null ? { id: w_id, name: w_name, identifier: w_identifier } : null,
      jobs,
      executionDetails,
    };
  }
}

/**
 * The fixed statements of {@link NotificationsService.list} after the page: `$1` the page's notification
 * ids, `$2` the environment id. Ordered oldest first over the whole page; the response groups them per
 * notification. `= ANY($1)` walks the `(notification_id, created_at, id)` indexes once per id.
 */
const LIST_NOTIFICATIONS_SQL = {
  jobs: `SELECT * FROM ntf_job
   WHERE notification_id = ANY($1::text[]) AND environment_id = $2 AND type <> 'trigger'
   ORDER BY created_at, id`,
  executionDetails: `SELECT * FROM ntf_execution_detail
   WHERE notification_id = ANY($1::text[]) AND environment_id = $2 AND channel <> 'trigger'
   ORDER BY created_at, id`,
} as const;

/**
 * The context keys of `n.context` as a text array, as the response shows them (`type:id`, the value
 * itself when it is a string, else its `id`). Order does not matter: it is compared as a set.
 */
const CONTEXT_KEYS_SQL = `ARRAY(
    SELECT c.key || ':' || CASE jsonb_typeof(c.value) WHEN 'string' THEN c.value #>> '{}' ELSE c.value ->> 'id' END
      FROM jsonb_each(CASE jsonb_typeof(n.context) WHEN 'object' THEN n.context ELSE '{}'::jsonb END) c
     WHERE jsonb_typeof(c.value) = 'string' OR jsonb_typeof(c.value -> 'id') = 'string')`;

/** A list query with its defaults applied and its values checked. */
interface ResolvedListQuery extends ResolvedPage {
  transactionId?: string;
  subscriberIds?: string[];
  channels?: string[];
  templates?: string[];
  emails?: string[];
  contextKeys?: string[];
  after?: string;
  before?: string;
}

/** Applies the defaults and refuses what cannot be answered, field by field. */
function resolveListQuery(query: ListNotificationsQuery): ResolvedListQuery {
  const errors: Record<string, FieldErrors> = {};
  const page = resolvePage(query, { defaultLimit: DEFAULT_NOTIFICATIONS_LIMIT, maxLimit: MAX_NOTIFICATIONS_LIMIT }, errors);
  if (query.transactionId !== undefined && typeof query.transactionId !== 'string') {
    errors.transactionId = { messages: ['transactionId must be a string'], value: query.transactionId };
  }
  const channels = resolveStringList('channels', query.channels, errors);
  if (channels?.some((channel) => !(CHANNEL_TYPES as readonly string[]).includes(channel))) {
    errors.channels = { messages: [`each value in channels must be one of: ${CHANNEL_TYPES.join(', ')}`], value: query.channels };
  }
  const contextKeys = resolveStringList('contextKeys', query.contextKeys, errors);
  const resolved: ResolvedListQuery = {
    ...page,
    transactionId: query.transactionId,
    subscriberIds: resolveStringList('subscriberIds', query.subscriberIds, errors),
    channels,
    templates: resolveStringList('templates', query.templates, errors),
    emails: resolveStringList('emails', query.emails, errors),
    // Empty strings are dropped, so `['']` is the empty set: "notifications without context".
    contextKeys: contextKeys && [...new Set(contextKeys.filter((key) => key !== ''))],
    after: resolveInstant('after', query.after, errors),
    before: resolveInstant('before', query.before, errors),
  };
  throwIfInvalid(errors);
  return resolved;
}

/** An ISO-8601 string or a Date as a canonical ISO string; a problem in `errors` for anything else. */
function resolveInstant(field: string, value: unknown, errors: Record<string, FieldErrors>): string | undefined {
  if (value === undefined) return undefined;
  const date = value instanceof Date ? value : typeof value === 'string' && value.trim() !== '' ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) {
    errors[field] = { messages: [`${field} must be a valid ISO 8601 date string`], value };
    return undefined;
  }
  return date.toISOString();
}

/**
 * The page statement. Only fixed fragments are text; every value is a parameter. Subscriber filters
 * are resolved to row ids in an `ARRAY(...)` subquery evaluated once before the scan, so that a single
 * subscriber can use the `(environment_id, subscriber_id, created_at, id)` index; without one the scan
 * walks `(environment_id, created_at, id)` backwards and stops after `limit + 1` matches.
 */
function buildListStatement(environmentId: string, q: ResolvedListQuery): { text: string; values: unknown[] } {
  const params = new SqlParams(environmentId);
  const filters = ['n.environment_id = $1'];
  if (q.transactionId !== undefined) filters.push(`n.transaction_id = ${params.add(q.transactionId)}`);
  if (q.subscriberIds !== undefined) {
    filters.push(
      `n.subscriber_id = ANY(ARRAY(SELECT id FROM ntf_subscriber WHERE environment_id = $1 AND subscriber_id = ANY(${params.add(q.subscriberIds, '::text[]')})))`,
    );
  }
  if (q.emails !== undefined) {
    filters.push(`n.subscriber_id = ANY(ARRAY(SELECT id FROM ntf_subscriber WHERE environment_id = $1 AND email = ANY(${params.add(q.emails, '::text[]')})))`);
  }
  if (q.channels !== undefined) filters.push(`n.channels && ${params.add(q.channels, '::text[]')}`);
  if (q.templates !== undefined) filters.push(`n.workflow_id = ANY(${params.add(q.templates, '::text[]')})`);
  if (q.contextKeys !== undefined) {
    // Set equality: each side contains the other (both are duplicate-free).
    const keys = params.add(q.contextKeys, '::text[]');
    filters.push(`${CONTEXT_KEYS_SQL} @> ${keys} AND ${CONTEXT_KEYS_SQL} <@ ${keys}`);
  }
  if (q.after !== undefined) filters.push(`n.created_at >= ${params.add(q.after, '::timestamptz')}`);
  if (q.before !== undefined) filters.push(`n.created_at <= ${params.add(q.before, '::timestamptz')}`);
  const offset = params.add(q.offset, '::bigint');
  const limit = params.add(q.limit + 1, '::int');
  const text = `SELECT n.*,
         s.id AS s_id, s.subscriber_id AS s_subscriber_id, s.first_name AS s_first_name, s.last_name AS s_last_name,
         s.email AS s_email, s.phone AS s_phone,
         w.id AS w_id, w.name AS w_name, w.identifier AS w_identifier
    FROM ntf_notification n
    LEFT JOIN ntf_subscriber s ON s.id = n.subscriber_id AND s.environment_id = $1 AND NOT s.deleted
    LEFT JOIN ntf_workflow w ON w.id = n.workflow_id AND w.environment_id = $1
   WHERE ${filters.join(' AND ')}
   ORDER BY n.created_at DESC, n.id DESC
  OFFSET ${offset} LIMIT ${limit}`;
  return { text, values: params.values };
}

/** Groups items by key, keeping their order within each group. */
function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
