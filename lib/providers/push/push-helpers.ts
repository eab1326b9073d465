import { createHash } from 'node:crypto';
import { DeliveryError } from '../delivery-provider';
import { isPlainObject } from '../vendor-http';

/**
 * The RFC 4122 namespace of the name-based UUIDs below (a fixed random UUID: names are hashed
 * together with it, so our ids never collide with other name-based UUIDs of the same text).
 */
const DEVICE_MESSAGE_NAMESPACE = Buffer.from('5f0b7c2e9a4d4f3b8e21c6d0a7b94e13', 'hex');

/**
 * A UUID (version 3, name-based, RFC 4122 §4.3) for one job's message to one device token: the same
 * on every retry of the job, different for each token. Vendors that take a UUID-shaped identifier
 * use it: OneSignal's `idempotency_key` (which must be a v3 or v4 UUID; a per-token key, since each
 * token is its own request and one shared key would make OneSignal drop the second token's send as a
 * duplicate) and APNs' `apns-id`. Job ids are 24-hex ids, not UUIDs, hence the hashing.
 */
export function deviceMessageUuid(jobId: string, token: string): string {
  const bytes = createHash('md5').update(DEVICE_MESSAGE_NAMESPACE).update(`${jobId}:${token}`).digest();
  bytes[6] = (bytes[6] & 0x0f) | 0x30; // version 3
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 4122 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * What is left of a send's time budget (`message.timeoutMs`, shared by every request of the send:
 * an OAuth token exchange and the push itself). A spent budget fails the send as transient.
 */
export function remainingMs(vendor: string, deadline: number, timeoutMs: number): number {
  const left = deadline - Date.now();
  if (left <= 0) throw new DeliveryError(`${vendor} did not answer within ${timeoutMs} ms`, undefined, { transient: true, code: 'timeout' });
  return left;
}


/** The HTTP status recorded in a {@link DeliveryError}'s `raw` by `vendorRequest`, if any. */
export function errorStatus(error: unknown): number | undefined {
  if (!(error instanceof DeliveryError) || !isPlainObject(error.raw)) return undefined;
  const status = error.raw.status;
  return typeof status === 'number' ? status : undefined;
}

/** A hash of the parts (credentials): caches are keyed by it, never by secret values. */
export function fingerprint(...parts: ReadonlyArray<string | undefined>): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part ?? '').update('\u0000');
  return hash.digest('hex');
}

/** A cached bearer token and when to stop using it. */
interface CachedToken {
  value: string;
  /** Epoch ms after which a new token is minted. */
  renewAt: number;
}

/**
 * Bearer tokens (an FCM OAuth access token, an APNs provider JWT) per credential set, reused until
 * shortly before they expire. Concurrent sends waiting for the same key share one mint (the token of
 * a send to several devices is fetched once). Holds at most `maxEntries` keys; expired entries are
 * dropped first, then the oldest.
 */
export class TokenCache {
  private readonly entries = new Map<string, CachedToken>();
  private readonly pending = new Map<string, Promise<string>>();

  constructor(private readonly maxEntries = 500) {}

  /**
   * The cached token of `key`, or a new one from `mint` (which says how long it may be used).
   * A failed mint is not cached: the next send tries again.
   */
  async get(key: string, mint: () => Promise<{ value: string; useForMs: number }>): Promise<string> {
    const cached = this.entries.get(key);
    if (cached && cached.renewAt > Date.now()) return cached.value;
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    const minted = (async () => {
      try {
        const { value, useForMs } = await mint();
        this.store(key, { value, renewAt: Date.now() + Math.max(0, useForMs) });
        return value;
      } finally {
        this.pending.delete(key);
      }
    })();
    this.pending.set(key, minted);
    return minted;
  }

  /**
   * Forgets `key`'s token when it is still `value` (the vendor refused it): a concurrent send that
   * already replaced it keeps the new one.
   */
  invalidate(key: string, value: string): void {
    if (this.entries.get(key)?.value === value) this.entries.delete(key);
  }

  private store(key: string, token: CachedToken): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const now = Date.now();
      for (const [other, entry] of this.entries) if (entry.renewAt <= now) this.entries.delete(other);
      // Maps iterate in insertion order: the first key is the least recently stored.
      while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(key, token);
  }
}
