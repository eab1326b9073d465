/**
 * Longest `subscriberId`, `transactionId` and subscriber `email` accepted. All are indexed, and a
 * B-tree entry holds at most about 2.7 kB: a longer value would fail deep in an INSERT (a 500) instead
 * of being refused.
 */
export const MAX_IDENTIFIER_LENGTH = 255;
