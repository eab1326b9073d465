import { Injectable, Logger } from '@nestjs/common';
import { sign } from 'jsonwebtoken';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryError, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { isPlainObject, pickString, type VendorFailure, vendorRequest, vendorUrl } from '../vendor-http';
import { type DeviceSendResult, sendToDeviceTokens } from './device-tokens';
import { errorStatus, fingerprint, remainingMs, TokenCache } from './push-helpers';

/** Google's OAuth token endpoint, when the service account has no `token_uri`. */
const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
/** The scope FCM's HTTP v1 API requires. */
const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Lifetime of the signed assertion (Google's maximum: one hour). */
const ASSERTION_LIFETIME_SECONDS = 3600;
/** Access tokens are renewed this long before Google says they expire (at most half their lifetime). */
const TOKEN_RENEWAL_MARGIN_MS = 5 * 60_000;

/** The fields of a Google service-account key file FCM needs. */
interface ServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri: string;
}

/**
 * Push through Firebase Cloud Messaging's HTTP v1 API, one request per device token.
 *
 * - **Auth**: `credentials.serviceAccount` is the service-account key file (the JSON text, as Novu's
 *   FCM integration stores it). A JWT `{ iss: client_email, scope: firebase.messaging, aud: token_uri,
 *   iat, exp: iat + 3600 }` signed RS256 with `private_key` is exchanged at `token_uri`
 *   (`POST`, form `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<jwt>`) for an
 *   OAuth access token, cached per service account until 5 minutes before its `expires_in` and shared
 *   by concurrent sends. A `401` from FCM drops the cached token and the send is repeated once with a
 *   new one (nothing was delivered, so repeating is safe).
 * - **Endpoint**: `POST {base}/v1/projects/{project_id}/messages:send` with `Authorization: Bearer
 *   <access token>`; base `https://fcm.googleapis.com`, or `credentials.baseUrl`.
 * - **Body**: `{ message: { token, notification: { title, body: content }, data } }` where `data` is
 *   the trigger payload with every value as a string (FCM only takes strings: non-strings are
 *   JSON-encoded, null/undefined left out).
 * - **Overrides** (the trigger's `overrides.providers.fcm`), FCM `Message` fields: `notification` (merged into
 *   the notification; `title`, `body` and `image` given at the top level are too), `data` (merged
 *   into the data, values stringified), `android`, `apns`, `webpush` (or `webPush`), `fcm_options`
 *   (or `fcmOptions`) set as given; `type: 'data'` sends a data-only message (title, body and
 *   `message` = content go into `data`), as Novu does. Other keys are ignored (FCM refuses unknown ones).
 * - **Idempotency**: FCM has no idempotency key.
 * - **Vendor id**: the answer's `name` (`projects/<project>/messages/<id>`), per token in `raw.tokens`;
 *   the first one becomes the message's id.
 * - **Errors**: the google.rpc status body `{ error: { code, status, message, details: [{ errorCode }] } }`;
 *   the `FcmError` detail's `errorCode` (else `status`) is the error code. `UNREGISTERED` (404) and
 *   `INVALID_ARGUMENT` (400; FCM's code for a malformed token, but also for other invalid fields, which
 *   the error text names) mark the token invalid. 429 (`QUOTA_EXCEEDED`), 5xx (`UNAVAILABLE`,
 *   `INTERNAL`), timeouts and network errors are transient; other answers (and a token exchange
 *   refused with `invalid_grant`) are permanent.
 * @publicApi
 */
@Injectable()
export class FcmProvider extends DeliveryProvider {
  readonly providerId = 'fcm';
  readonly channel = 'push';
  override readonly requiredCredentials = ['serviceAccount'] as const;
  private readonly logger = new Logger(FcmProvider.name);
  private readonly accessTokens = new TokenCache();

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const account = parseServiceAccount(credentials.serviceAccount);
    const deadline = Date.now() + message.timeoutMs;
    const url = vendorUrl(credentials, 'https://fcm.googleapis.com', `/v1/projects/${encodeURIComponent(account.project_id)}/messages:send`);
    const cacheKey = fingerprint(account.client_email, account.private_key, account.token_uri);
    const accessToken = () => this.accessTokens.get(cacheKey, () => this.fetchAccessToken(account, message, deadline));

    const sendOne = async (token: string): Promise<DeviceSendResult> => {
      const json = { message: this.buildMessage(message, token) };
      const post = async (bearer: string) =>
        vendorRequest(
          'FCM',
          { url, headers: { authorization: `Bearer ${bearer}` }, json, timeoutMs: remainingMs('FCM', deadline, message.timeoutMs) },
          describeFcmFailure,
        );
      const bearer = await accessToken();
      let response;
      try {
        response = await post(bearer);
      } catch (error) {
        if (errorStatus(error) !== 401) throw error;
        // The token was revoked or expired early: mint a new one and try once more.
        this.logger.debug(`Job ${message.jobId}: FCM refused the cached access token, fetching a new one`);
        this.accessTokens.invalidate(cacheKey, bearer);
        response = await post(await accessToken());
      }
      return { id: pickString(response.body, 'name'), raw: { status: response.status, body: response.body } };
    };
    return sendToDeviceTokens('FCM', message, sendOne);
  }

  /** The FCM `Message` for one token (see the class comment for the overrides). */
  protected buildMessage(message: DeliveryMessage, token: string): Record<string, unknown> {
    const overrides = message.overrides;
    const title = message.title ?? '';
    const data = { ...stringValues(message.payload), ...stringValues(isPlainObject(overrides.data) ? overrides.data : {}) };
    const fcmMessage: Record<string, unknown> = { token };
    if (overrides.type === 'data') {
      fcmMessage.data = { ...data, title, body: message.content, message: message.content };
    } else {
      const notification: Record<string, unknown> = { title, body: message.content };
      for (const key of ['title', 'body', 'image'] as const) if (typeof overrides[key] === 'string') notification[key] = overrides[key];
      if (isPlainObject(overrides.notification)) Object.assign(notification, overrides.notification);
      fcmMessage.notification = notification;
      if (Object.keys(data).length) fcmMessage.data = data;
    }
    const android = overrides.android;
    const apns = overrides.apns;
    const webpush = overrides.webpush ?? overrides.webPush;
    const fcmOptions = overrides.fcm_options ?? overrides.fcmOptions;
    if (isPlainObject(android)) fcmMessage.android = android;
    if (isPlainObject(apns)) fcmMessage.apns = apns;
    if (isPlainObject(webpush)) fcmMessage.webpush = webpush;
    if (isPlainObject(fcmOptions)) fcmMessage.fcm_options = fcmOptions;
    return fcmMessage;
  }

  /** Signs the service account's assertion and exchanges it for an access token. */
  private async fetchAccessToken(account: ServiceAccount, message: DeliveryMessage, deadline: number): Promise<{ value: string; useForMs: number }> {
    const iat = Math.floor(Date.now() / 1000);
    let assertion: string;
    try {
      assertion = sign(
        { iss: account.client_email, scope: FCM_SCOPE, aud: account.token_uri, iat, exp: iat + ASSERTION_LIFETIME_SECONDS },
        account.private_key,
        { algorithm: 'RS256', ...(account.private_key_id && { keyid: account.private_key_id }) },
      );
    } catch {
      // The signing library's message may quote the key material: say what is wrong, not what it read.
      throw new DeliveryError('The FCM service account private_key is not a valid RSA private key (PEM)', undefined, { code: 'invalid_credentials' });
    }
    const response = await vendorRequest(
      'FCM OAuth',
      {
        url: account.token_uri,
        form: { grant_type: JWT_BEARER_GRANT, assertion },
        timeoutMs: remainingMs('FCM OAuth', deadline, message.timeoutMs),
      },
      describeOAuthFailure,
    );
    const value = pickString(response.body, 'access_token');
    if (!value) throw new DeliveryError('FCM OAuth answered without an access_token', { status: response.status }, { code: 'invalid_token_response' });
    const expiresInMs = Number(pickString(response.body, 'expires_in') ?? 3600) * 1000;
    const lifetime = Number.isFinite(expiresInMs) && expiresInMs > 0 ? expiresInMs : 3600_000;
    return { value, useForMs: lifetime - Math.min(TOKEN_RENEWAL_MARGIN_MS, lifetime / 2) };
  }
}

/** The service account of `credentials.serviceAccount` (JSON text, or an object), checked. */
function parseServiceAccount(value: unknown): ServiceAccount {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value) as unknown;
    } catch {
      throw new DeliveryError('The FCM credentials.serviceAccount is not valid JSON', undefined, { code: 'invalid_credentials' });
    }
  }
  if (!isPlainObject(parsed)) throw new DeliveryError('The FCM integration has no credentials.serviceAccount', undefined, { code: 'invalid_credentials' });
  const missing = ['project_id', 'client_email', 'private_key'].filter((key) => typeof parsed[key] !== 'string' || parsed[key] === '');
  if (missing.length) {
    throw new DeliveryError(`The FCM service account is missing ${missing.join(', ')}`, undefined, { code: 'invalid_credentials' });
  }
  return {
    project_id: parsed.project_id as string,
    client_email: parsed.client_email as string,
    private_key: parsed.private_key as string,
    private_key_id: typeof parsed.private_key_id === 'string' ? parsed.private_key_id : undefined,
    token_uri: typeof parsed.token_uri === 'string' && parsed.token_uri !== '' ? parsed.token_uri : DEFAULT_TOKEN_URI,
  };
}

/** FCM data values: strings as they are, anything else JSON-encoded; null and undefined left out. */
function stringValues(values: Record<string, unknown>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined || value === null) continue;
    result[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return result;
}

/** `{ error: { code, status, message, details: [{ '@type': '...FcmError', errorCode }] } }`. */
function describeFcmFailure(body: unknown): VendorFailure | undefined {
  if (!isPlainObject(body) || !isPlainObject(body.error)) return undefined;
  const { status, message, details } = body.error;
  const fcmCode = Array.isArray(details)
    ? details.map((detail) => (isPlainObject(detail) && typeof detail.errorCode === 'string' ? detail.errorCode : undefined)).find(Boolean)
    : undefined;
  const code = fcmCode ?? (typeof status === 'string' ? status : undefined);
  const text = typeof message === 'string' ? message : undefined;
  return { code, message: [code, text].filter(Boolean).join(': ') || undefined };
}

/** Google's OAuth error `{ error, error_description }`. */
function describeOAuthFailure(body: unknown): VendorFailure | undefined {
  if (!isPlainObject(body)) return undefined;
  const code = typeof body.error === 'string' ? body.error : undefined;
  const description = typeof body.error_description === 'string' ? body.error_description : undefined;
  return { code, message: [code, description].filter(Boolean).join(': ') || undefined };
}
