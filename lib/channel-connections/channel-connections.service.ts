import { randomBytes } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Injectable } from '@nestjs/common';
import { NotificationsDatabase } from '../common/database';
import { CHANNEL_TYPES, type ChannelType, PROVIDER_IDS, type ProviderId } from '../common/enums';
import { type FieldErrors, RequestValidationException } from '../common/errors/validation-errors';
import { isObjectId } from '../common/id';
import { SecretCipher } from '../common/secret-cipher';
import { EnvironmentDirectory } from '../environments/environment-directory';
import { type ChannelConnectionAuth, ChannelConnectionEntity, type ChannelConnectionWorkspace } from './channel-connection.entity';

/** Page size when the caller gives none. */
export const DEFAULT_CHANNEL_CONNECTIONS_LIMIT = 10;
/** Largest page a caller may ask for. */
export const MAX_CHANNEL_CONNECTIONS_LIMIT = 100;
/** `totalCount` stops counting here: beyond it the count says 50,000 and `totalCountCapped` is true. */
export const CHANNEL_CONNECTIONS_COUNT_CAP = 50_000;

/** The fields a list can be ordered by. */
export const CHANNEL_CONNECTION_ORDER_BY = ['createdAt', 'updatedAt'] as const;
export type ChannelConnectionOrderBy = (typeof CHANNEL_CONNECTION_ORDER_BY)[number];

/** Sort directions (`DirectionEnum`). */
export const ORDER_DIRECTIONS = ['ASC', 'DESC'] as const;
export type OrderDirection = (typeof ORDER_DIRECTIONS)[number];

/** What a channel connection is created with. */
export interface CreateChannelConnectionInput {
  /** Unique in the environment; generated from the provider id when omitted. */
  identifier?: string;
  channel: ChannelType;
  providerId: ProviderId;
  integrationIdentifier: string;
  /** The caller's subscriber identifier the connection belongs to, if any. */
  subscriberId?: string;
  /** Context keys (`type:id`, e.g. `tenant:acme`); stored sorted and without duplicates. */
  contextKeys?: string[];
  workspace: ChannelConnectionWorkspace;
  /** Encrypted before it is stored. */
  auth: ChannelConnectionAuth;
}

/**
 * What a list is asked for. Every field is optional; see DESIGN §7 for the defaults.
 * `contextKeys` selects the connections whose context is exactly that set, in any order; `['']` (or
 * `[]`) selects the connections without context.
 */
export interface ListChannelConnectionsQuery {
  /** 1..100. @default 10 */
  limit?: number;
  /** Id of the item the page starts after (in display order). */
  after?: string;
  /** Id of the item the page ends before (in display order). Not together with `after`. */
  before?: string;
  /** @default 'createdAt' */
  orderBy?: ChannelConnectionOrderBy;
  /** @default 'DESC' */
  orderDirection?: OrderDirection;
  /** Make the cursor item part of the page. */
  includeCursor?: boolean;
  subscriberId?: string;
  channel?: ChannelType;
  providerId?: ProviderId;
  integrationIdentifier?: string;
  contextKeys?: string[] | string;
}

/** Options of {@link ChannelConnectionsService.list}. */
export interface ListChannelConnectionsOptions {
  /**
   * Decrypt the tokens (session callers). When false every item's auth is `{ accessToken: '' }`:
   * the field the contract requires, with nothing in it.
   */
  revealTokens: boolean;
}

/** One listed connection with its auth, decrypted or redacted as asked. */
export interface ListedChannelConnection {
  connection: ChannelConnectionEntity;
  auth: ChannelConnectionAuth;
}

/** A page of connections: the contract's list shape, with entities instead of DTOs. */
export interface ChannelConnectionsPage {
  data: ListedChannelConnection[];
  /** Id of the last item when more items follow it, else null. */
  next: string | null;
  /** Id of the first item when items precede it, else null. */
  previous: string | null;
  totalCount: number;
  totalCountCapped: boolean;
}

/** A list query with its defaults applied and its values checked. */
interface ResolvedListQuery {
  limit: number;
  cursor?: { id: string; mode: 'after' | 'before' };
  /** A cursor was given that cannot be an id: the answer is the empty page, without a query. */
  malformedCursor: boolean;
  sortColumn: 'created_at' | 'updated_at';
  descending: boolean;
  includeCursor: boolean;
  subscriberId?: string;
  channel?: ChannelType;
  providerId?: ProviderId;
  integrationIdentifier?: string;
  contextKeys?: string[];
}

/** One row of the list statement: a connection's columns (all null when the page is empty) plus the summary. */
type ListRow = Record<string, unknown> & { id: string | null; page_rank: string | null; total_count: number; has_before_edge: boolean };

const SORT_COLUMNS: Record<ChannelConnectionOrderBy, ResolvedListQuery['sortColumn']> = {
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

/** The answer to a cursor that names no connection of the environment (behavior.md §2 step 2). */
function emptyPage(): ChannelConnectionsPage {
  return { data: [], next: null, previous: null, totalCount: 0, totalCountCapped: false };
}

/**
 * Channel connections: OAuth-style links of a chat workspace to a subscriber or a context. Tokens are
 * encrypted before they are stored and decrypted only on request.
 * @publicApi
 */
@Injectable()
export class ChannelConnectionsService {
  constructor(
    private readonly db: NotificationsDatabase,
    private readonly directory: EnvironmentDirectory,
    private readonly cipher: SecretCipher,
  ) {}

  /**
   * Stores a connection. `contextKeys` are sorted and deduplicated so that an exact-set filter is an
   * array equality (and can use an index).
   * @throws RequestValidationException for a malformed input or an identifier already used in the environment.
   */
  async create(environmentId: string, input: CreateChannelConnectionInput): Promise<ChannelConnectionEntity> {
    validateCreateInput(input);
    const organizationId = await this.directory.getOrganizationId(environmentId);
    const identifier = input.identifier ?? `${input.providerId}-${randomBytes(6).toString('hex')}`;
    // Only the contract's fields are kept: whatever else a caller passes is not ours to store.
    const auth: ChannelConnectionAuth = {
      accessToken: input.auth.accessToken,
      ...(input.auth.refreshToken !== undefined && { refreshToken: input.auth.refreshToken }),
      ...(input.auth.expiresAt !== undefined && { expiresAt: input.auth.expiresAt }),
      ...(input.auth.refreshTokenExpiresAt !== undefined && { refreshTokenExpiresAt: input.auth.refreshTokenExpiresAt }),
    };
    const em = this.db.fork();
    const connection = em.create(ChannelConnectionEntity, {
      environmentId,
      organizationId,
      identifier,
      channel: input.channel,
      providerId: input.providerId,
      integrationIdentifier: input.integrationIdentifier,
      subscriberId: input.subscriberId ?? null,
      contextKeys: normalizeContextKeys(input.contextKeys ?? []),
      workspace: { id: input.workspace.id, ...(input.workspace.name !== undefined && { name: input.workspace.name }) },
      authEncrypted: this.cipher.encrypt(JSON.stringify(auth)),
    });
    try {
      await em.flush();
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) {
        throw RequestValidationException.forField('identifier', `identifier "${identifier}" is already used in this environment`, identifier);
      }
      throw error;
    }
    return connection;
  }

  /**
   * A page of the environment's connections, keyset-paginated on `(orderBy, id)`, in one statement:
   * the cursor row, the page (`limit + 1` rows, the extra one telling whether more follow), whether
   * anything lies before the page, and the filter's count capped at 50,000 — all in one round trip.
   *
   * An unknown or malformed cursor gives the empty page (`totalCount: 0`), as the reference service does.
   * @throws RequestValidationException for a limit outside 1..100, an unknown orderBy, orderDirection,
   * channel or provider, or `before` together with `after`.
   */
  async list(environmentId: string, query: ListChannelConnectionsQuery = {}, options: ListChannelConnectionsOptions = { revealTokens: false }): Promise<ChannelConnectionsPage> {
    const q = resolveListQuery(query);
    // A cursor that cannot be an id names no connection: the same empty page as an unknown one.
    if (q.malformedCursor) return emptyPage();
    const { text, values } = buildListStatement(environmentId, q);
    const { rows } = await this.db.query<ListRow>(text, values);
    // The statement always returns at least one row (the summary), with null columns for an empty page.
    // An unknown cursor needs no branch here: the page is empty and the count is gated to zero.
    const summary = rows[0];
    const found = rows.filter((row) => row.id !== null);
    const entities = this.db.read(ChannelConnectionEntity, found.map(stripSummaryColumns));
    const before = q.cursor?.mode === 'before';
    // The statement fetched one row more than the page: it is the last one in display order when
    // paging forward, the first one when paging backward (the scan runs against the display order).
    const hasExtra = entities.length > q.limit;
    const page = hasExtra ? (before ? entities.slice(1) : entities.slice(0, q.limit)) : entities;
    // `has_before_edge` tells whether anything precedes, in scan order, the row nearest the cursor:
    // forward that is "items before the first", backward "items after the last" (behavior.md §2 step 5).
    const first = page[0]?.id ?? null;
    const last = page[page.length - 1]?.id ?? null;
    const next = before ? (summary.has_before_edge ? last : null) : hasExtra ? last : null;
    const previous = before ? (hasExtra ? first : null) : summary.has_before_edge ? first : null;
    const counted = summary.total_count;
    return {
      data: page.map((connection) => ({
        connection,
        auth: options.revealTokens ? this.decryptAuth(connection) : { accessToken: '' },
      })),
      next,
      previous,
      totalCount: Math.min(counted, CHANNEL_CONNECTIONS_COUNT_CAP),
      totalCountCapped: counted > CHANNEL_CONNECTIONS_COUNT_CAP,
    };
  }

  /** The plaintext tokens of a connection. */
  decryptAuth(connection: ChannelConnectionEntity): ChannelConnectionAuth {
    return JSON.parse(this.cipher.decrypt(connection.authEncrypted)) as ChannelConnectionAuth;
  }
}

/** Sorted (by code unit, the same order in every process) and without duplicates. */
function normalizeContextKeys(keys: readonly string[]): string[] {
  return [...new Set(keys)].sort();
}

function stripSummaryColumns(row: ListRow): Record<string, unknown> {
  const { page_rank: _rank, total_count: _count, has_before_edge: _edge, ...columns } = row;
  return columns;
}

/**
 * The list statement. Only whitelisted column names and operators are spliced into the text; every
 * value is a parameter. `t.environment_id = $1` is part of every scan, the cursor lookup included.
 */
function buildListStatement(environmentId: string, q: ResolvedListQuery): { text: string; values: unknown[] } {
  const values: unknown[] = [environmentId];
  const param = (value: unknown, cast = '') => {
    values.push(value);
    return `$${values.length}${cast}`;
  };
  const filters = ['t.environment_id = $1'];
  if (q.subscriberId !== undefined) filters.push(`t.subscriber_id = ${param(q.subscriberId)}`);
  if (q.channel !== undefined) filters.push(`t.channel = ${param(q.channel)}`);
  if (q.providerId !== undefined) filters.push(`t.provider_id = ${param(q.providerId)}`);
  if (q.integrationIdentifier !== undefined) filters.push(`t.integration_identifier = ${param(q.integrationIdentifier)}`);
  // Stored sorted and deduplicated, so the exact-set match is an equality with the normalised input.
  if (q.contextKeys !== undefined) filters.push(`t.context_keys = ${param(q.contextKeys, '::text[]')}`);
  const where = filters.join(' AND ');
  // The count reads up to 50,001 rows. Where one index covers the whole filter (none, or exactly one of
  // subscriberId / integrationIdentifier / contextKeys, each indexed with created_at), asking for that
  // index's order makes it an index-only scan of ~300 pages; left free, the planner may prefer a
  // sequential scan that stops early but reads the (wide) heap, about twice as slow. With any other
  // filter the order is not asked for, so it never forces a sort or an index walk with heap lookups.
  const indexedFilters = [q.subscriberId, q.integrationIdentifier, q.contextKeys].filter((f) => f !== undefined).length;
  const countOrder = q.channel === undefined && q.providerId === undefined && indexedFilters <= 1 ? 'ORDER BY t.created_at, t.id' : '';

  const sort = q.sortColumn;
  // The scan runs in display order after a cursor (or without one), and against it before a cursor;
  // the page is put back in display order at the end.
  const scanDescending = q.descending !== (q.cursor?.mode === 'before');
  const dir = scanDescending ? 'DESC' : 'ASC';
  const ahead = scanDescending ? '<' : '>';
  const behind = scanDescending ? '>' : '<';
  const backDir = scanDescending ? 'ASC' : 'DESC';
  const cursorParam = q.cursor ? param(q.cursor.id) : undefined;
  const limitParam = param(q.limit + 1);
  const bound = q.includeCursor ? `${ahead}=` : ahead;

  // The cursor's sort value is read inside the statement (by id, within the environment), so the
  // comparison uses PostgreSQL's own microsecond timestamp, never a rounded JavaScript Date. Without a
  // cursor row (unknown id) the bound is NULL, the page is empty and the count is gated to zero.
  //
  // Two planner details keep every part an index range scan, at any depth (see bench/):
  // - the bounds are scalar subqueries (evaluated once, before the scan), not a join, so that the row
  //   comparison becomes an index condition on `(environment_id, <sort>, id)` instead of a filter;
  // - "is anything behind the page" is an ordered `LIMIT 1` lookup, not EXISTS: PostgreSQL strips
  //   ORDER BY/LIMIT from EXISTS and may then pick a sequential scan that reads the whole environment
  //   when nothing is found (the first page).
  const cursorRow = cursorParam
    ? `cursor_row AS (
      SELECT c.${sort} AS sort_value, c.id FROM ntf_channel_connection c WHERE c.environment_id = $1 AND c.id = ${cursorParam}
    ),`
    : '';
  const text = `
    WITH ${cursorRow}
    page AS (
      SELECT p.*, row_number() OVER (ORDER BY p.${sort} ${dir}, p.id ${dir}) AS page_rank
        FROM (
          SELECT t.* FROM ntf_channel_connection t
           WHERE ${where}${cursorParam ? ` AND (t.${sort}, t.id) ${bound} ((SELECT sort_value FROM cursor_row), (SELECT id FROM cursor_row))` : ''}
           ORDER BY t.${sort} ${dir}, t.id ${dir}
           LIMIT ${limitParam}
        ) p
    ),
    edge AS (
      SELECT ${sort} AS sort_value, id FROM page WHERE page_rank = 1
    ),
    summary AS (
      SELECT
        (SELECT count(*) FROM (
           SELECT 1 FROM ntf_channel_connection t
            WHERE ${where}${cursorParam ? ' AND EXISTS (SELECT 1 FROM cursor_row)' : ''}
            ${countOrder}
            LIMIT ${CHANNEL_CONNECTIONS_COUNT_CAP + 1}
         ) capped)::int AS total_count,
        (SELECT t.id FROM ntf_channel_connection t
          WHERE ${where} AND (t.${sort}, t.id) ${behind} ((SELECT sort_value FROM edge), (SELECT id FROM edge))
          ORDER BY t.${sort} ${backDir}, t.id ${backDir}
          LIMIT 1) IS NOT NULL AS has_before_edge
    )
    SELECT page.*, summary.total_count, summary.has_before_edge
      FROM summary LEFT JOIN page ON true
     ORDER BY page.page_rank ${q.cursor?.mode === 'before' ? 'DESC' : 'ASC'}`;
  return { text, values };
}

/** Applies the defaults of DESIGN §7 and refuses what cannot be answered, field by field. */
function resolveListQuery(query: ListChannelConnectionsQuery): ResolvedListQuery {
  const errors: Record<string, FieldErrors> = {};
  const limit = query.limit ?? DEFAULT_CHANNEL_CONNECTIONS_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CHANNEL_CONNECTIONS_LIMIT) {
    errors.limit = { messages: [`limit must be an integer between 1 and ${MAX_CHANNEL_CONNECTIONS_LIMIT}`], value: query.limit };
  }
  const orderBy = query.orderBy ?? 'createdAt';
  if (!(CHANNEL_CONNECTION_ORDER_BY as readonly string[]).includes(orderBy)) {
    errors.orderBy = { messages: [`orderBy must be one of: ${CHANNEL_CONNECTION_ORDER_BY.join(', ')}`], value: query.orderBy };
  }
  const orderDirection = query.orderDirection ?? 'DESC';
  if (!(ORDER_DIRECTIONS as readonly string[]).includes(orderDirection)) {
    errors.orderDirection = { messages: [`orderDirection must be one of: ${ORDER_DIRECTIONS.join(', ')}`], value: query.orderDirection };
  }
  if (query.channel !== undefined && !(CHANNEL_TYPES as readonly string[]).includes(query.channel)) {
    errors.channel = { messages: [`channel must be one of: ${CHANNEL_TYPES.join(', ')}`], value: query.channel };
  }
  if (query.providerId !== undefined && !(PROVIDER_IDS as readonly string[]).includes(query.providerId)) {
    errors.providerId = { messages: ['providerId must be one of the ProvidersIdEnum values'], value: query.providerId };
  }
  for (const field of ['after', 'before', 'subscriberId', 'integrationIdentifier'] as const) {
    if (query[field] !== undefined && typeof query[field] !== 'string') errors[field] = { messages: [`${field} must be a string`], value: query[field] };
  }
  if (query.includeCursor !== undefined && typeof query.includeCursor !== 'boolean') {
    errors.includeCursor = { messages: ['includeCursor must be a boolean value'], value: query.includeCursor };
  }
  const rawKeys = typeof query.contextKeys === 'string' ? [query.contextKeys] : query.contextKeys;
  if (rawKeys !== undefined && (!Array.isArray(rawKeys) || rawKeys.some((key) => typeof key !== 'string'))) {
    errors.contextKeys = { messages: ['contextKeys must be an array of strings'], value: query.contextKeys };
  }
  if (query.after !== undefined && query.before !== undefined) {
    const message = 'before and after cannot be used together';
    errors.after = { messages: [message], value: query.after };
    errors.before = { messages: [message], value: query.before };
  }
  if (Object.keys(errors).length) throw new RequestValidationException(errors);

  const cursorId = query.after ?? query.before;
  return {
    limit,
    cursor: cursorId !== undefined ? { id: cursorId.toLowerCase(), mode: query.after !== undefined ? 'after' : 'before' } : undefined,
    malformedCursor: cursorId !== undefined && !isObjectId(cursorId),
    sortColumn: SORT_COLUMNS[orderBy],
    descending: orderDirection === 'DESC',
    includeCursor: query.includeCursor ?? false,
    subscriberId: query.subscriberId,
    channel: query.channel,
    providerId: query.providerId,
    integrationIdentifier: query.integrationIdentifier,
    // Empty strings are dropped, so `['']` is the empty set: "connections without context".
    contextKeys: rawKeys && normalizeContextKeys(rawKeys.filter((key) => key !== '')),
  };
}

function validateCreateInput(input: CreateChannelConnectionInput): void {
  const errors: Record<string, FieldErrors> = {};
  const nonEmpty = (value: unknown) => typeof value === 'string' && value.trim() !== '';
  if (input?.identifier !== undefined && !nonEmpty(input.identifier)) {
    errors.identifier = { messages: ['identifier must be a non-empty string'], value: input.identifier };
  }
  if (!(CHANNEL_TYPES as readonly string[]).includes(input?.channel)) {
    errors.channel = { messages: [`channel must be one of: ${CHANNEL_TYPES.join(', ')}`], value: input?.channel };
  }
  if (!(PROVIDER_IDS as readonly string[]).includes(input?.providerId)) {
    errors.providerId = { messages: ['providerId must be one of the ProvidersIdEnum values'], value: input?.providerId };
  }
  if (!nonEmpty(input?.integrationIdentifier)) {
    errors.integrationIdentifier = { messages: ['integrationIdentifier must be a non-empty string'], value: input?.integrationIdentifier };
  }
  if (input?.subscriberId !== undefined && !nonEmpty(input.subscriberId)) {
    errors.subscriberId = { messages: ['subscriberId must be a non-empty string'], value: input.subscriberId };
  }
  if (input?.contextKeys !== undefined && (!Array.isArray(input.contextKeys) || !input.contextKeys.every(nonEmpty))) {
    errors.contextKeys = { messages: ['contextKeys must be an array of non-empty strings'], value: input.contextKeys };
  }
  const workspace = input?.workspace as Partial<ChannelConnectionWorkspace> | undefined;
  if (typeof workspace !== 'object' || workspace === null || !nonEmpty(workspace.id)) {
    errors['workspace.id'] = { messages: ['workspace.id must be a non-empty string'], value: workspace?.id };
  } else if (workspace.name !== undefined && typeof workspace.name !== 'string') {
    errors['workspace.name'] = { messages: ['workspace.name must be a string'], value: workspace.name };
  }
  const auth = input?.auth as Partial<ChannelConnectionAuth> | undefined;
  if (typeof auth !== 'object' || auth === null || !nonEmpty(auth.accessToken)) {
    // The token itself is never echoed back in an error.
    errors['auth.accessToken'] = { messages: ['auth.accessToken must be a non-empty string'] };
  } else {
    for (const field of ['refreshToken', 'expiresAt', 'refreshTokenExpiresAt'] as const) {
      if (auth[field] !== undefined && typeof auth[field] !== 'string') errors[`auth.${field}`] = { messages: [`auth.${field} must be a string`] };
    }
  }
  if (Object.keys(errors).length) throw new RequestValidationException(errors);
}
