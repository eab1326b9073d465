/**
 * Every message the API sends to a client, in one place. The three 401 texts and the idempotency texts
 * are those of the contract (reference/behavior.md §7).
 */
export const MESSAGES = {
  missingAuthorization: 'Missing authorization header',
  invalidScheme: (scheme: string) => `Invalid authentication scheme: "${scheme}"`,
  apiKeyNotFound: 'API Key not found',
  sessionAuthDisabled: 'Session (Bearer) authentication is not enabled for this API',
  invalidSession: 'Invalid or expired session token',
  subscriberNotFound: 'Subscriber not found',
  notificationNotFound: 'Notification not found',
  validationFailed: 'Validation failed',
  internalError: 'Internal server error, contact support and provide them with the errorId',
  idempotencyKeyTooLong: (key: string) =>
    `idempotencyKey "${key}" has exceeded the maximum allowed length of 255 characters`,
  idempotencyInProgress: (key: string) =>
    `Request with key "${key}" is currently being processed. Please retry after 1 second`,
  idempotencyBodyMismatch: (key: string) => `Request with key "${key}" is being reused for a different body`,
} as const;
