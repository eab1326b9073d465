import { Injectable, Logger } from '@nestjs/common';
import { NotificationsDatabase } from '../common/database';
import { generateId } from '../common/id';
import { InjectNotificationsOptions } from '../notifications.constants';
import type { ResolvedNotificationsOptions } from '../notifications.options';

/** What to do with a request that carries an idempotency key. */
export type IdempotencyDecision =
  | { kind: 'proceed'; recordId: string }
  | { kind: 'replay'; statusCode: number; body: unknown }
  | { kind: 'in_progress' }
  | { kind: 'mismatch' };

const PURGE_EVERY_MS = 10 * 60_000;

/**
 * Idempotency records in PostgreSQL, so that every instance of the host app agrees on them.
 * Claiming a key is one statement: an INSERT that, on conflict, takes the row over only when it has
 * expired or its owner crashed (lock past). Concurrent claims of one key are serialised by the
 * unique index: exactly one wins.
 */
@Injectable()
export class IdempotencyService {
  private readonly logger = new Logger(IdempotencyService.name);
  private nextPurgeAt = 0;

  constructor(
    private readonly db: NotificationsDatabase,
    @InjectNotificationsOptions() private readonly options: ResolvedNotificationsOptions,
  ) {}

  /** Claims `key` for a request with this fingerprint, or says why not. */
  async begin(environmentId: string, key: string, fingerprint: string): Promise<IdempotencyDecision> {
    this.purgeExpiredNowAndThen();
    const recordId = generateId();
    const { ttlSeconds, lockSeconds } = this.options.idempotency;
    const claimed = await this.db.query<{ id: string }>(
      `INSERT INTO ntf_idempotency_record AS r
         (id, environment_id, key, fingerprint, status, locked_until, expires_at, created_at)
       VALUES ($1, $2, $3, $4, 'in_progress', now() + make_interval(secs => $5), now() + make_interval(secs => $6), now())
       ON CONFLICT (environment_id, key) DO UPDATE
         SET id = EXCLUDED.id, fingerprint = EXCLUDED.fingerprint, status = 'in_progress', status_code = NULL,
             response_body = NULL, locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at,
             created_at = EXCLUDED.created_at
         WHERE r.expires_at < now() OR (r.status = 'in_progress' AND r.locked_until < now())
       RETURNING id`,
      [recordId, environmentId, key, fingerprint, lockSeconds, ttlSeconds],
    );
    if (claimed.rows[0]?.id === recordId) return { kind: 'proceed', recordId };

    const { rows } = await this.db.query<{ fingerprint: string; status: string; status_code: number | null; response_body: unknown }>(
      'SELECT fingerprint, status, status_code, response_body FROM ntf_idempotency_record WHERE environment_id = $1 AND key = $2',
      [environmentId, key],
    );
    const record = rows[0];
    // The owner finished and a purge removed the row between our two statements: try once more.
    if (!record) return this.begin(environmentId, key, fingerprint);
    if (record.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (record.status !== 'completed' || record.status_code === null) return { kind: 'in_progress' };
    return { kind: 'replay', statusCode: record.status_code, body: record.response_body };
  }

  /** Stores the response of the request that owns `recordId`. */
  async complete(recordId: string, statusCode: number, body: unknown): Promise<void> {
    await this.db.query(
      `UPDATE ntf_idempotency_record SET status = 'completed', status_code = $2, response_body = $3::jsonb WHERE id = $1`,
      [recordId, statusCode, storableJson(body ?? null)],
    );
  }

  /** Frees the key after a server fault, so that a retry can run the request again. */
  async release(recordId: string): Promise<void> {
    await this.db.query('DELETE FROM ntf_idempotency_record WHERE id = $1', [recordId]);
  }

  /** Deletes expired records, at most once per ten minutes per process, off the request path. */
  private purgeExpiredNowAndThen(): void {
    const now = Date.now();
    if (now < this.nextPurgeAt) return;
    this.nextPurgeAt = now + PURGE_EVERY_MS;
    this.db
      .query('DELETE FROM ntf_idempotency_record WHERE expires_at < now()')
      .catch((error: unknown) => this.logger.warn(`Purging expired idempotency records failed: ${String(error)}`));
  }
}

/**
 * The JSON text of a response, in a form PostgreSQL's jsonb accepts. jsonb refuses the escapes of
 * U+0000 and of unpaired UTF-16 surrogates, which a response holds when it echoes bad input (a 422
 * naming a field whose key has a NUL, a bulk result echoing a malformed transactionId): storing it as
 * is would turn that 4xx into a 500. Such escapes become U+FFFD in the stored copy, so a replay shows
 * the replacement character where the original response had the unstorable one. `JSON.stringify`
 * escapes only unpaired surrogates (paired ones are written as is), and an escape counts only when
 * preceded by an even number of backslashes (`\\u0000` is a backslash followed by text).
 */
function storableJson(body: unknown): string {
  return JSON.stringify(body).replace(/(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/gi, '$1\\ufffd');
}
