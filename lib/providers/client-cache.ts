import { createHash } from 'node:crypto';

/**
 * Clients of a vendor library (AWS SDK clients, nodemailer transports), one per distinct set of
 * settings, so every send with the same credentials reuses the same client and its open connections
 * (a TLS handshake, an SMTP greeting and AUTH cost more than the send itself).
 *
 * - Keyed by a SHA-256 hash of the settings: the map never holds secrets as keys, and two
 *   integrations with the same credentials share a client.
 * - A client unused for `idleMs` is closed and dropped; so is the least recently used one when more
 *   than `maxSize` are cached (many tenants, each with its own SMTP server). A client dropped while
 *   sends are still running on it is closed once the last of them has settled, never under them.
 * - {@link closeAll} at module shutdown.
 */
export class ClientCache<C> {
  private readonly entries = new Map<string, CacheEntry<C>>();

  constructor(private readonly options: { close: (client: C) => void; idleMs: number; maxSize: number }) {}

  /** How many clients are cached. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Runs `run` with the client cached for `settings`, created with `create` when there is none.
   * `settings` must hold everything the client is built from (it is hashed, never stored).
   */
  async use<T>(settings: unknown, create: () => C, run: (client: C) => Promise<T>): Promise<T> {
    const entry = this.acquire(cacheKey(settings), create);
    entry.inFlight += 1;
    try {
      return await run(entry.client);
    } finally {
      entry.inFlight -= 1;
      if (entry.inFlight === 0) {
        if (entry.retired) this.options.close(entry.client);
        else this.startIdleTimer(entry);
      }
    }
  }

  /** Closes every client (those still sending once their sends have settled) and empties the cache. */
  closeAll(): void {
    for (const entry of [...this.entries.values()]) this.retire(entry);
  }

  private acquire(key: string, create: () => C): CacheEntry<C> {
    const cached = this.entries.get(key);
    if (cached) {
      clearTimeout(cached.idleTimer);
      cached.idleTimer = undefined;
      // Re-inserted: Map iteration order is the least-recently-used order eviction reads.
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    const entry: CacheEntry<C> = { key, client: create(), inFlight: 0, retired: false };
    this.entries.set(key, entry);
    for (const oldest of this.entries.values()) {
      if (this.entries.size <= this.options.maxSize) break;
      this.retire(oldest);
    }
    return entry;
  }

  private startIdleTimer(entry: CacheEntry<C>): void {
    clearTimeout(entry.idleTimer);
    entry.idleTimer = setTimeout(() => this.retire(entry), this.options.idleMs);
    // An idle client must not keep the process alive.
    entry.idleTimer.unref();
  }

  private retire(entry: CacheEntry<C>): void {
    if (entry.retired) return;
    entry.retired = true;
    clearTimeout(entry.idleTimer);
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
    if (entry.inFlight === 0) this.options.close(entry.client);
  }
}

interface CacheEntry<C> {
  key: string;
  client: C;
  inFlight: number;
  retired: boolean;
  idleTimer?: NodeJS.Timeout;
}

function cacheKey(settings: unknown): string {
  return createHash('sha256').update(JSON.stringify(settings)).digest('hex');
}
