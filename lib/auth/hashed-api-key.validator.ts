import { createHash, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { NotificationsDatabase } from '../common/database';
import { InjectNotificationsOptions } from '../notifications.constants';
import type { ResolvedNotificationsOptions } from '../notifications.options';
import { type ApiKeyPrincipal, ApiKeyValidator } from './api-key-validator';

/** sha256 of an API key, hex: the only form in which keys are stored. */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

const MAX_CACHED_KEYS = 10_000;

/**
 * The default {@link ApiKeyValidator}: hashes the presented key, finds the hash in `ntf_api_key`
 * (unique index), and compares the stored hash with `timingSafeEqual`. Valid keys are cached briefly
 * (`auth.apiKeyCacheSeconds`) so that a busy API does not pay a query per request; unknown keys are
 * never cached, so a flood of garbage keys cannot evict real ones.
 */
@Injectable()
export class HashedApiKeyValidator extends ApiKeyValidator {
  private readonly cache = new Map<string, { principal: Promise<ApiKeyPrincipal>; expiresAt: number }>();

  constructor(
    private readonly db: NotificationsDatabase,
    @InjectNotificationsOptions() private readonly options: ResolvedNotificationsOptions,
  ) {
    super();
  }

  /** Not `async`: a cached key answers with the promise it was cached as, without new promises per request. */
  validate(apiKey: string): Promise<ApiKeyPrincipal | null> {
    const hash = hashApiKey(apiKey);
    const cached = this.cache.get(hash);
    if (cached && cached.expiresAt > Date.now()) return cached.principal;
    return this.lookup(hash);
  }

  private async lookup(hash: string): Promise<ApiKeyPrincipal | null> {
    const { rows } = await this.db.query<{ id: string; hash: string; environment_id: string; organization_id: string }>(
      'SELECT id, hash, environment_id, organization_id FROM ntf_api_key WHERE hash = $1 AND revoked_at IS NULL',
      [hash],
    );
    const row = rows[0];
    if (!row || !timingSafeEqual(Buffer.from(row.hash, 'hex'), Buffer.from(hash, 'hex'))) {
      this.cache.delete(hash);
      return null;
    }
    const principal: ApiKeyPrincipal = { environmentId: row.environment_id, organizationId: row.organization_id, apiKeyId: row.id };
    const ttlMs = this.options.auth.apiKeyCacheSeconds * 1000;
    if (ttlMs > 0) {
      if (this.cache.size >= MAX_CACHED_KEYS) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(hash, { principal: Promise.resolve(principal), expiresAt: Date.now() + ttlMs });
    }
    return principal;
  }
}
