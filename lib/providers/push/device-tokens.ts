import { type DeliveryMessage, DeliveryError, type DeliveryResult } from '../delivery-provider';

/** What one device token's send gave. */
export interface DeviceSendResult {
  /** The vendor's id for this token's message, when it gives one. */
  id?: string;
  /** The vendor's answer for this token. */
  raw?: unknown;
}

/** One token's line in `raw.tokens` of a push send. */
export interface DeviceTokenOutcome {
  token: string;
  status: 'sent' | 'failed';
  id?: string;
  /** The vendor's error code (e.g. `invalid_token`, `Unregistered`), for failed tokens. */
  code?: string;
  error?: string;
  /** Failed tokens: whether the vendor said the token is no longer valid (the app should drop it). */
  invalidToken?: boolean;
  raw?: unknown;
}

/** Error codes that mean "this device token is dead", across vendors. */
const INVALID_TOKEN_CODES = new Set([
  'invalid_token',
  'UNREGISTERED', // FCM
  'INVALID_ARGUMENT', // FCM, a malformed token
  'BadDeviceToken', // APNs
  'Unregistered', // APNs
  'DeviceTokenNotForTopic', // APNs
  'DeviceNotRegistered', // Expo
  'invalid_player_ids', // OneSignal
]);

/**
 * Push providers send one request per device token (DESIGN §8, issue 4): each token's outcome is
 * recorded in `raw.tokens`, so an invalid token shows up by itself instead of failing its siblings.
 *
 * - At least one token sent → success; the first vendor id is the message's id, failed tokens stay
 *   listed with their error (an invalid token is marked `invalidToken`).
 * - Every token failed → a {@link DeliveryError} carrying every token's outcome; transient when one
 *   of the failures is (a retry then resends to every token, none of which received it).
 */
export async function sendToDeviceTokens(
  vendor: string,
  message: DeliveryMessage,
  sendOne: (token: string) => Promise<DeviceSendResult>,
): Promise<DeliveryResult> {
  const tokens = [...new Set((message.to.deviceTokens ?? []).filter((token) => typeof token === 'string' && token.trim() !== ''))];
  if (!tokens.length) throw new DeliveryError(`The subscriber has no ${vendor} device tokens`);
  const settled = await Promise.allSettled(tokens.map((token) => sendOne(token)));
  const outcomes: DeviceTokenOutcome[] = settled.map((result, index) => {
    const token = tokens[index];
    if (result.status === 'fulfilled') return { token, status: 'sent', id: result.value.id, raw: result.value.raw };
    const error = result.reason as unknown;
    const code = error instanceof DeliveryError ? error.code : undefined;
    return {
      token,
      status: 'failed',
      error: error instanceof Error ? error.message : String(error),
      ...(code && { code }),
      ...(code && INVALID_TOKEN_CODES.has(code) && { invalidToken: true }),
      ...(error instanceof DeliveryError && error.raw !== undefined && { raw: error.raw }),
    };
  });
  const sent = outcomes.filter((outcome) => outcome.status === 'sent');
  if (sent.length) return { id: sent.find((outcome) => outcome.id)?.id, raw: { sent: sent.length, failed: outcomes.length - sent.length, tokens: outcomes } };

  const errors = settled.map((result) => (result as PromiseRejectedResult).reason as unknown);
  const transient = errors.some((error) => error instanceof DeliveryError && error.transient);
  const retryAfter = Math.max(0, ...errors.map((error) => (error instanceof DeliveryError ? (error.retryAfterMs ?? 0) : 0)));
  const first = outcomes[0];
  throw new DeliveryError(
    tokens.length === 1 ? first.error! : `${vendor}: all ${tokens.length} device tokens failed (first: ${first.error})`,
    { sent: 0, failed: outcomes.length, tokens: outcomes },
    { transient, retryAfterMs: retryAfter || undefined, code: first.code },
  );
}
