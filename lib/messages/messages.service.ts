import { Injectable, NotFoundException } from '@nestjs/common';
import { NotificationsDatabase } from '../common/database';
import { CHANNEL_TYPES, type ChannelType, MARK_AS_VALUES, type MarkAs } from '../common/enums';
import { MESSAGES } from '../common/errors/messages';
import { type FieldErrors, RequestValidationException } from '../common/errors/validation-errors';
import { LIST_COUNT_CAP, type ResolvedPage, resolvePage, resolveStringList, SqlParams, throwIfInvalid } from '../common/query-params';
import type { SubscriberEntity } from '../subscribers/subscriber.entity';
import { messageIdProblem, toMessageIds } from './dto/message-mark-as-request.dto';
import { decodeFeedPayload } from './feed-payload';
import { MessageEntity } from './message.entity';

/** Page size of {@link MessagesService.list} when the caller gives none. */
export const DEFAULT_MESSAGES_LIMIT = 10;
/** Largest page of {@link MessagesService.list}. */
export const MAX_MESSAGES_LIMIT = 100;
/** Page size of {@link MessagesService.listFeed} when the caller gives none. */
export const DEFAULT_FEED_LIMIT = 10;
/** Largest page of {@link MessagesService.listFeed} (the contract's maximum). */
export const MAX_FEED_LIMIT = 100;

/** What {@link MessagesService.list} is asked for; every field is optional and filters combine with AND. */
export interface ListMessagesQuery {
  /** From 0. @default 0 */
  page?: number;
  /** 1..100. @default 10 */
  limit?: number;
  /** The caller's subscriber identifier (`subscriberId`); an unknown one gives an empty page. */
  subscriberId?: string;
  channel?: ChannelType;
  /** One transaction id or several (any of them). */
  transactionId?: string | string[];
  /** Exact set of context keys (`type:id`), in any order; `['']` (or `[]`) selects messages without context. */
  contextKeys?: string | string[];
}

/** What {@link MessagesService.listFeed} is asked for; every field is optional. */
export interface ListFeedQuery {
  /** From 0. @default 0 */
  page?: number;
  /** 1..100. @default 10 */
  limit?: number;
  read?: boolean;
  seen?: boolean;
  /** Base64 of a JSON object: only messages whose payload contains it (`jsonb @>`). */
  payload?: string;
}

/** A page of messages, newest first. */
export interface MessagesPage {
  data: MessageEntity[];
  /** Matching messages, counted up to {@link LIST_COUNT_CAP}. */
  totalCount: number;
  hasMore: boolean;
  page: number;
  /** The limit applied. */
  pageSize: number;
}

/** What the feed shows of its subscriber. */
export type FeedSubscriber = Pick<SubscriberEntity, 'id' | 'subscriberId' | 'firstName' | 'lastName' | 'avatar'>;

/** A page of a subscriber's in-app feed, with the subscriber. */
export interface FeedPage extends MessagesPage {
  subscriber: FeedSubscriber;
}

/** A row of the list statements: a message's columns (all null when the page is empty) plus the summary. */
type PageRow = Record<string, unknown> & { id: string | null; total_count: number };

/** A row of the feed statement: {@link PageRow} plus the subscriber's columns. */
type FeedRow = PageRow & {
  s_id: string;
  s_subscriber_id: string;
  s_first_name: string | null;
  s_last_name: string | null;
  s_avatar: string | null;
};

/**
 * The SET clause of each mark-as action. `unread`/`unseen` clear the flag but keep the date of the
 * last read/seen (DESIGN §7, which keeps the history the reference service overwrites with "now").
 * Fixed strings chosen by a validated key: no caller text ever reaches the SQL.
 */
const MARK_AS_SET: Record<MarkAs, string> = {
  read: 'read = true, last_read_date = now(), seen = true, last_seen_date = now()',
  seen: 'seen = true, last_seen_date = now()',
  unread: 'read = false',
  unseen: 'seen = false',
};

/**
 * In-app messages of an environment's subscribers.
 * @publicApi
 */
@Injectable()
export class MessagesService {
  constructor(private readonly db: NotificationsDatabase) {}

  /**
   * Marks messages of one subscriber as read, seen, unread or unseen, and returns the updated messages,
   * oldest first. Ids of messages that do not exist, are deleted, or belong to another subscriber or
   * environment are skipped silently.
   *
   * The whole request is one statement: the subscriber lookup and the set-based
   * `UPDATE … WHERE id = ANY($ids)` share a CTE, and the outer LEFT JOIN still yields one (empty) row
   * when the subscriber exists but no message matched, which tells "unknown subscriber" from "nothing
   * to update" without a second round trip.
   *
   * @param messageIds a 24-hex id, a comma-separated list of them, or an array of them (at most 1000).
   * @throws RequestValidationException for a missing or malformed `messageIds` or an unknown `markAs`.
   * @throws NotFoundException `Subscriber not found` when the subscriber is not in the environment.
   */
  async markAs(environmentId: string, subscriberId: string, messageIds: string | string[], markAs: MarkAs): Promise<MessageEntity[]> {
    const errors: Record<string, FieldErrors> = {};
    const idProblem = messageIdProblem(messageIds);
    if (idProblem) errors.messageId = { messages: [idProblem], value: messageIds };
    if (!(MARK_AS_VALUES as readonly unknown[]).includes(markAs)) {
      errors.markAs = { messages: [`markAs must be one of the following values: ${MARK_AS_VALUES.join(', ')}`], value: markAs };
    }
    if (Object.keys(errors).length) throw new RequestValidationException(errors);

    const { rows } = await this.db.query<{ subscriber_row_id: string; id: string | null }>(
      `WITH subscriber AS (
         SELECT id FROM ntf_subscriber
          WHERE environment_id = $1 AND subscriber_id = $2 AND NOT deleted
       ), updated AS (
         UPDATE ntf_message AS m
            SET ${MARK_AS_SET[markAs]}, updated_at = now()
           FROM subscriber
          WHERE m.environment_id = $1 AND m.subscriber_id = subscriber.id AND m.id = ANY($3::text[]) AND NOT m.deleted
         RETURNING m.*
       )
       SELECT subscriber.id AS subscriber_row_id, updated.*
         FROM subscriber LEFT JOIN updated ON true
        ORDER BY updated.created_at, updated.id`,
      [environmentId, subscriberId, toMessageIds(messageIds)],
    );
    if (!rows.length) throw new NotFoundException(MESSAGES.subscriberNotFound);
    const messages = rows
      .filter((row) => row.id !== null)
      .map(({ subscriber_row_id: _subscriberRowId, ...message }) => message);
    return this.db.read(MessageEntity, messages);
  }
  /**
   * A page of the environment's messages (deleted ones excluded), newest first (`created_at DESC, id
   * DESC`), in one statement: the page (`limit + 1` rows, the extra one telling whether more follow) and
   * the filter's count, capped at {@link LIST_COUNT_CAP} so that it never scans more than that.
   * @throws RequestValidationException for a page or limit out of range, an unknown channel, or a filter
   * of the wrong type.
   */
  async list(environmentId: string, query: ListMessagesQuery = {}): Promise<MessagesPage> {
    const errors: Record<string, FieldErrors> = {};
    const page = resolvePage(query, { defaultLimit: DEFAULT_MESSAGES_LIMIT, maxLimit: MAX_MESSAGES_LIMIT }, errors);
    if (query.channel !== undefined && !(CHANNEL_TYPES as readonly string[]).includes(query.channel)) {
      errors.channel = { messages: [`channel must be one of: ${CHANNEL_TYPES.join(', ')}`], value: query.channel };
    }
    if (query.subscriberId !== undefined && typeof query.subscriberId !== 'string') {
      errors.subscriberId = { messages: ['subscriberId must be a string'], value: query.subscriberId };
    }
    const transactionIds = resolveStringList('transactionId', query.transactionId, errors);
    const contextKeys = resolveStringList('contextKeys', query.contextKeys, errors);
    throwIfInvalid(errors);

    const params = new SqlParams(environmentId);
    const filters = ['m.environment_id = $1', 'NOT m.deleted'];
    if (query.subscriberId !== undefined) {
      // A scalar subquery, evaluated once: an unknown subscriber is NULL and matches nothing.
      filters.push(`m.subscriber_id = (SELECT id FROM ntf_subscriber WHERE environment_id = $1 AND subscriber_id = ${params.add(query.subscriberId)})`);
    }
    if (query.channel !== undefined) filters.push(`m.channel = ${params.add(query.channel)}`);
    if (transactionIds !== undefined) filters.push(`m.transaction_id = ANY(${params.add(transactionIds, '::text[]')})`);
    if (contextKeys !== undefined) {
      // Set equality, order and duplicates aside; empty strings are dropped so `['']` is "no context".
      const keys = params.add([...new Set(contextKeys.filter((key) => key !== ''))], '::text[]');
      filters.push(`m.context_keys @> ${keys} AND m.context_keys <@ ${keys}`);
    }
    const { text, values } = pageStatement(filters.join(' AND '), params, page);
    const { rows } = await this.db.query<PageRow>(text, values);
    return this.toPage(rows, page);
  }

  /**
   * A page of one subscriber's in-app feed: its `in_app` messages, deleted ones excluded, newest first,
   * optionally only the read/unread, seen/unseen ones, or those whose payload contains a partial object.
   * One statement: the subscriber lookup, the page and the capped count (up to {@link LIST_COUNT_CAP}).
   * @param subscriberId the caller's subscriber identifier.
   * @throws RequestValidationException for a page or limit out of range, a non-boolean read/seen, or a
   * payload that is not base64 of a JSON object.
   * @throws NotFoundException `Subscriber not found` when the subscriber is not in the environment.
   */
  async listFeed(environmentId: string, subscriberId: string, query: ListFeedQuery = {}): Promise<FeedPage> {
    const errors: Record<string, FieldErrors> = {};
    const page = resolvePage(query, { defaultLimit: DEFAULT_FEED_LIMIT, maxLimit: MAX_FEED_LIMIT }, errors);
    for (const field of ['read', 'seen'] as const) {
      if (query[field] !== undefined && typeof query[field] !== 'boolean') errors[field] = { messages: [`${field} must be a boolean value`], value: query[field] };
    }
    const payload = query.payload === undefined ? undefined : decodeFeedPayload(query.payload);
    if (payload && 'problem' in payload) errors.payload = { messages: [payload.problem], value: query.payload };
    throwIfInvalid(errors);

    const params = new SqlParams(environmentId, subscriberId);
    // `(SELECT id FROM subscriber)` is evaluated once, so the scan is a range of the
    // `(environment_id, subscriber_id, created_at, id)` index, walked backwards.
    const filters = ['m.environment_id = $1', 'm.subscriber_id = (SELECT id FROM subscriber)', "m.channel = 'in_app'", 'NOT m.deleted'];
    if (query.read !== undefined) filters.push(`m.read = ${params.add(query.read, '::boolean')}`);
    if (query.seen !== undefined) filters.push(`m.seen = ${params.add(query.seen, '::boolean')}`);
    if (payload && 'value' in payload) filters.push(`m.payload @> ${params.add(JSON.stringify(payload.value), '::jsonb')}`);
    const { text, values } = pageStatement(filters.join(' AND '), params, page, {
      cte: 'subscriber AS (SELECT id, subscriber_id, first_name, last_name, avatar FROM ntf_subscriber WHERE environment_id = $1 AND subscriber_id = $2 AND NOT deleted)',
      columns: 'subscriber.id AS s_id, subscriber.subscriber_id AS s_subscriber_id, subscriber.first_name AS s_first_name, subscriber.last_name AS s_last_name, subscriber.avatar AS s_avatar',
      from: 'subscriber CROSS JOIN summary',
    });
    const { rows } = await this.db.query<FeedRow>(text, values);
    // No row at all: the subscriber CTE was empty.
    if (!rows.length) throw new NotFoundException(MESSAGES.subscriberNotFound);
    const { s_id, s_subscriber_id, s_first_name, s_last_name, s_avatar } = rows[0];
    return {
      ...this.toPage(rows, page),
      subscriber: { id: s_id, subscriberId: s_subscriber_id, firstName: s_first_name, lastName: s_last_name, avatar: s_avatar },
    };
  }

  /** The rows of a {@link pageStatement} as a page: the extra row tells `hasMore` and is dropped. */
  private toPage(rows: PageRow[], page: ResolvedPage): MessagesPage {
    const found = rows.filter((row) => row.id !== null);
    const hasMore = found.length > page.limit;
    return {
      // The reader takes the entity's columns and ignores the summary and subscriber ones.
      data: this.db.read(MessageEntity, hasMore ? found.slice(0, page.limit) : found),
      totalCount: Math.min(rows[0]?.total_count ?? 0, LIST_COUNT_CAP),
      hasMore,
      page: page.page,
      pageSize: page.limit,
    };
  }
}

/**
 * One statement for a page of messages and its capped count: the summary always yields one row (with
 * null message columns when the page is empty), so "nothing matched" needs no second round trip. The
 * count stops at `LIST_COUNT_CAP + 1` rows. `extra` adds a leading CTE and its columns (the feed's
 * subscriber); when that CTE is empty the statement returns no row at all.
 */
function pageStatement(
  where: string,
  params: SqlParams,
  page: ResolvedPage,
  extra?: { cte: string; columns: string; from: string },
): { text: string; values: unknown[] } {
  const offset = params.add(page.offset, '::bigint');
  const limit = params.add(page.limit + 1, '::int');
  const text = `
    WITH ${extra ? `${extra.cte},` : ''}
    page AS (
      SELECT m.* FROM ntf_message m
       WHERE ${where}
       ORDER BY m.created_at DESC, m.id DESC
      OFFSET ${offset} LIMIT ${limit}
    ),
    summary AS (
      SELECT (SELECT count(*) FROM (SELECT 1 FROM ntf_message m WHERE ${where} LIMIT ${LIST_COUNT_CAP + 1}) capped)::int AS total_count
    )
    SELECT ${extra ? `${extra.columns}, ` : ''}summary.total_count, page.*
      FROM ${extra ? extra.from : 'summary'} LEFT JOIN page ON true
     ORDER BY page.created_at DESC, page.id DESC`;
  return { text, values: params.values };
}
