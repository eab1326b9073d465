import { type ClientHttp2Session, type ClientHttp2Stream, connect, constants as http2 } from 'node:http2';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { sign } from 'jsonwebtoken';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryError, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { describeError, isPlainObject, isTransientStatus, parseJson, truncate, VENDOR_RESPONSE_BODY_LIMIT } from '../vendor-http';
import { credentialString } from '../webhook-request';
import { type DeviceSendResult, sendToDeviceTokens } from './device-tokens';
import { deviceMessageUuid, fingerprint, remainingMs, TokenCache } from './push-helpers';

const PRODUCTION_ORIGIN = 'https://api.push.apple.com';
const SANDBOX_ORIGIN = 'https://api.sandbox.push.apple.com';
/**
 * How long a provider token is reused. Apple refuses tokens older than an hour
 * (`ExpiredProviderToken`) and ones renewed more often than every 20 minutes
 * (`TooManyProviderTokenUpdates`).
 */
const PROVIDER_TOKEN_TTL_MS = 50 * 60_000;
/** An HTTP/2 session without traffic for this long is closed. */
const IDLE_SESSION_MS = 5 * 60_000;

/** What one APNs request gave. */
interface ApnsAnswer {
  status: number;
  apnsId?: string;
  body: unknown;
}

/** The APNs credentials, under the contract's `CredentialsDto` names Novu's APNs integration uses. */
interface ApnsCredentials {
  /** `secretKey`: the `.p8` signing key (PEM). */
  key: string;
  /** `apiKey`: the key's 10-character Key ID. */
  keyId: string;
  /** `projectName`: the 10-character Team ID. */
  teamId: string;
  /** `applicationId`: the app's bundle id, the default `apns-topic`. */
  bundleId: string;
}

/**
 * Push through the Apple Push Notification service's HTTP/2 provider API, one request per device token.
 *
 * - **Credentials** (Novu's APNs fields): `secretKey` = the `.p8` key (PEM), `apiKey` = its Key ID,
 *   `projectName` = the Team ID, `applicationId` = the bundle id, `secure: true` = production.
 * - **Endpoint**: `POST /3/device/<token>` over HTTP/2 on `https://api.push.apple.com` (production) or
 *   `https://api.sandbox.push.apple.com` (default), or `credentials.baseUrl` (an `http://` base speaks
 *   cleartext HTTP/2, for tests). One session per origin is kept open and shared by every send (as
 *   Apple asks), replaced when it fails or receives GOAWAY, closed after 5 idle minutes or when the
 *   module stops.
 * - **Auth**: `authorization: bearer <provider token>`, an ES256 JWT `{ iss: teamId, iat }` with header
 *   `kid: keyId`, reused for 50 minutes (Apple: no more than one new token per 20 minutes, none older
 *   than an hour). `403 ExpiredProviderToken` drops it and the request is repeated once with a new one.
 * - **Headers**: `apns-topic` (bundle id, or `overrides.topic`), `apns-push-type` (`alert`, or
 *   `overrides.pushType`), `apns-priority` (`10`, or `overrides.priority`), `apns-id` (see below), and
 *   when given `apns-expiration` (`overrides.expiration`, epoch seconds) and `apns-collapse-id`
 *   (`overrides.collapseId`).
 * - **Body**: `{ ...payload, aps: { alert: { title, body: content } } }`: the trigger payload's keys
 *   become custom top-level keys. Overrides (the trigger's `overrides.providers.apns`): `subtitle` (alert),
 *   `badge`, `sound`, `category`, `threadId`, `contentAvailable`, `mutableContent`,
 *   `interruptionLevel`, `relevanceScore` (aps), `aps` (merged into aps last), `payload` (extra
 *   custom top-level keys).
 * - **Idempotency / vendor id**: APNs has no idempotency key. The `apns-id` header is a UUID derived
 *   from the job id and the token ({@link deviceMessageUuid}), the same on every retry; APNs echoes it
 *   in its `apns-id` answer header, which is the vendor id (per token in `raw.tokens`).
 * - **Errors**: the JSON `{ reason }`, used as the error code. `400 BadDeviceToken`,
 *   `400 DeviceTokenNotForTopic` and `410 Unregistered` mark the token invalid. 429
 *   (`TooManyRequests`), 500, 503, timeouts and connection failures are transient; other answers
 *   permanent.
 * @publicApi
 */
@Injectable()
export class ApnsProvider extends DeliveryProvider implements OnModuleDestroy {
  readonly providerId = 'apns';
  readonly channel = 'push';
  override readonly requiredCredentials = ['secretKey', 'apiKey', 'projectName', 'applicationId'] as const;
  private readonly logger = new Logger(ApnsProvider.name);
  private readonly providerTokens = new TokenCache();
  private readonly sessions = new Map<string, ClientHttp2Session>();

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const apns = readCredentials(credentials);
    const origin = this.origin(credentials);
    const deadline = Date.now() + message.timeoutMs;
    const cacheKey = fingerprint(apns.teamId, apns.keyId, apns.key);
    const providerToken = () => this.providerTokens.get(cacheKey, async () => ({ value: signProviderToken(apns), useForMs: PROVIDER_TOKEN_TTL_MS }));
    const body = JSON.stringify(this.buildBody(message));

    const sendOne = async (token: string): Promise<DeviceSendResult> => {
      const headers = this.buildHeaders(message, apns, token);
      let bearer = await providerToken();
      let answer = await this.request(origin, token, { ...headers, authorization: `bearer ${bearer}` }, body, deadline, message.timeoutMs);
      if (answer.status === 403 && reasonOf(answer.body) === 'ExpiredProviderToken') {
        this.logger.debug(`Job ${message.jobId}: APNs says the provider token expired, signing a new one`);
        this.providerTokens.invalidate(cacheKey, bearer);
        bearer = await providerToken();
        answer = await this.request(origin, token, { ...headers, authorization: `bearer ${bearer}` }, body, deadline, message.timeoutMs);
      }
      if (answer.status === 200) return { id: answer.apnsId, raw: { status: answer.status, apnsId: answer.apnsId } };
      const reason = reasonOf(answer.body);
      throw new DeliveryError(
        `APNs responded with ${answer.status}${reason ? `: ${reason}` : ''}`,
        { status: answer.status, body: answer.body },
        // An expired token that a fresh one did not fix (a skewed clock) may pass later.
        { transient: isTransientStatus(answer.status) || reason === 'ExpiredProviderToken', code: reason },
      );
    };
    return sendToDeviceTokens('APNs', message, sendOne);
  }

  /** Closes every open HTTP/2 session. */
  onModuleDestroy(): void {
    for (const session of this.sessions.values()) session.close();
    this.sessions.clear();
  }

  /** The request headers but `authorization` (see the class comment). */
  protected buildHeaders(message: DeliveryMessage, apns: ApnsCredentials, token: string): Record<string, string> {
    const overrides = message.overrides;
    const headers: Record<string, string> = {
      'apns-topic': typeof overrides.topic === 'string' && overrides.topic !== '' ? overrides.topic : apns.bundleId,
      'apns-push-type': typeof overrides.pushType === 'string' && overrides.pushType !== '' ? overrides.pushType : 'alert',
      'apns-priority': typeof overrides.priority === 'number' || typeof overrides.priority === 'string' ? String(overrides.priority) : '10',
      'apns-id': deviceMessageUuid(message.jobId, token),
      'content-type': 'application/json',
    };
    if (typeof overrides.expiration === 'number' || typeof overrides.expiration === 'string') headers['apns-expiration'] = String(overrides.expiration);
    if (typeof overrides.collapseId === 'string' && overrides.collapseId !== '') headers['apns-collapse-id'] = overrides.collapseId;
    return headers;
  }

  /** The JSON payload (see the class comment for the overrides). */
  protected buildBody(message: DeliveryMessage): Record<string, unknown> {
    const overrides = message.overrides;
    const alert: Record<string, unknown> = { title: message.title ?? '', body: message.content };
    if (typeof overrides.subtitle === 'string') alert.subtitle = overrides.subtitle;
    const aps: Record<string, unknown> = { alert };
    const apsFields: Array<[string, string]> = [
      ['badge', 'badge'],
      ['sound', 'sound'],
      ['category', 'category'],
      ['threadId', 'thread-id'],
      ['interruptionLevel', 'interruption-level'],
      ['relevanceScore', 'relevance-score'],
    ];
    for (const [from, to] of apsFields) if (overrides[from] !== undefined && overrides[from] !== null) aps[to] = overrides[from];
    if (overrides.contentAvailable) aps['content-available'] = 1;
    if (overrides.mutableContent) aps['mutable-content'] = 1;
    if (isPlainObject(overrides.aps)) Object.assign(aps, overrides.aps);
    return { ...message.payload, ...(isPlainObject(overrides.payload) ? overrides.payload : {}), aps };
  }

  /** `credentials.baseUrl`, else production (`secure`) or sandbox. */
  private origin(credentials: IntegrationCredentials): string {
    const base = credentialString(credentials, 'baseUrl');
    if (base) {
      let url: URL;
      try {
        url = new URL(base);
      } catch {
        throw new DeliveryError('The APNs credentials.baseUrl is not a valid URL', undefined, { code: 'invalid_credentials' });
      }
      return url.origin;
    }
    const production = credentials.secure === true || credentials.secure === 'true';
    return production ? PRODUCTION_ORIGIN : SANDBOX_ORIGIN;
  }

  /**
   * One POST on the origin's shared session. A stream the server refused unprocessed (the session was
   * going away) is sent once more on a new session; network failures and timeouts become transient
   * errors.
   */
  private async request(origin: string, token: string, headers: Record<string, string>, body: string, deadline: number, timeoutMs: number): Promise<ApnsAnswer> {
    try {
      return await this.requestOnce(origin, token, headers, body, deadline, timeoutMs);
    } catch (error) {
      if (!(error instanceof RefusedStream)) throw error;
      this.dropSession(origin, error.session);
      return this.requestOnce(origin, token, headers, body, deadline, timeoutMs).catch((again: unknown) => {
        throw again instanceof RefusedStream ? again.failure : again;
      });
    }
  }

  private requestOnce(origin: string, token: string, headers: Record<string, string>, body: string, deadline: number, timeoutMs: number): Promise<ApnsAnswer> {
    const budget = remainingMs('APNs', deadline, timeoutMs);
    const session = this.session(origin);
    return new Promise<ApnsAnswer>((resolve, reject) => {
      let stream: ClientHttp2Stream;
      try {
        stream = session.request({
          [http2.HTTP2_HEADER_METHOD]: 'POST',
          [http2.HTTP2_HEADER_PATH]: `/3/device/${encodeURIComponent(token)}`,
          ...headers,
        });
      } catch (error) {
        // The session closed between the pool lookup and the request: nothing was sent.
        reject(new RefusedStream(session, networkFailure(error)));
        return;
      }
      let status = 0;
      let apnsId: string | undefined;
      const chunks: Buffer[] = [];
      let length = 0;
      const timer = setTimeout(() => {
        stream.close(http2.NGHTTP2_CANCEL);
        reject(new DeliveryError(`APNs did not answer within ${timeoutMs} ms`, { error: 'timeout' }, { transient: true, code: 'timeout' }));
      }, budget);
      stream.on('response', (responseHeaders) => {
        status = Number(responseHeaders[http2.HTTP2_HEADER_STATUS]);
        const id = responseHeaders['apns-id'];
        apnsId = typeof id === 'string' ? id : undefined;
      });
      stream.on('data', (chunk: Buffer) => {
        // Error bodies are small JSON objects; keep no more than the stored limit of anything else.
        if (length <= VENDOR_RESPONSE_BODY_LIMIT) chunks.push(chunk);
        length += chunk.length;
      });
      stream.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status, apnsId, body: parseJson(text) ?? (text === '' ? undefined : truncate(text)) });
      });
      stream.on('error', (error) => {
        clearTimeout(timer);
        const failure = networkFailure(error);
        reject(stream.rstCode === http2.NGHTTP2_REFUSED_STREAM ? new RefusedStream(session, failure) : failure);
      });
      stream.end(body);
    });
  }

  /** The open session of `origin`, or a new one (kept until it fails, is told to go away, or idles). */
  private session(origin: string): ClientHttp2Session {
    const existing = this.sessions.get(origin);
    if (existing && !existing.closed && !existing.destroyed) return existing;
    const session = connect(origin);
    const forget = (): void => this.dropSession(origin, session);
    session.on('error', (error) => {
      // The streams on it fail with the same error; this only keeps the session out of the pool.
      this.logger.debug(`APNs session to ${origin} failed: ${describeError(error)}`);
      forget();
    });
    session.on('goaway', forget);
    session.on('close', forget);
    session.setTimeout(IDLE_SESSION_MS, () => {
      forget();
      session.close();
    });
    this.sessions.set(origin, session);
    return session;
  }

  /** Takes `session` out of the pool (when it is still the origin's), so the next send opens a new one. */
  private dropSession(origin: string, session: ClientHttp2Session): void {
    if (this.sessions.get(origin) === session) this.sessions.delete(origin);
  }
}

/** A stream the server did not process (`REFUSED_STREAM`, or a session already closed): safe to send again. */
class RefusedStream extends Error {
  constructor(
    readonly session: ClientHttp2Session,
    readonly failure: DeliveryError,
  ) {
    super(failure.message);
  }
}

function networkFailure(error: unknown): DeliveryError {
  const described = describeError(error);
  return new DeliveryError(`APNs request failed: ${described}`, { error: described }, { transient: true, code: 'network_error' });
}

function readCredentials(credentials: IntegrationCredentials): ApnsCredentials {
  const key = credentialString(credentials, 'secretKey');
  const keyId = credentialString(credentials, 'apiKey');
  const teamId = credentialString(credentials, 'projectName');
  const bundleId = credentialString(credentials, 'applicationId');
  const missing = [
    ['secretKey', key],
    ['apiKey', keyId],
    ['projectName', teamId],
    ['applicationId', bundleId],
  ]
    .filter(([, value]) => !value)
    .map(([name]) => name);
  if (missing.length) throw new DeliveryError(`The APNs integration is missing credentials: ${missing.join(', ')}`, undefined, { code: 'invalid_credentials' });
  return { key: key!, keyId: keyId!, teamId: teamId!, bundleId: bundleId! };
}

/** The provider token: ES256 JWT `{ iss: teamId, iat }`, header `kid: keyId`. */
function signProviderToken(apns: ApnsCredentials): string {
  try {
    return sign({ iss: apns.teamId, iat: Math.floor(Date.now() / 1000) }, apns.key, { algorithm: 'ES256', keyid: apns.keyId });
  } catch {
    // The signing library's message may quote the key material.
    throw new DeliveryError('The APNs credentials.secretKey is not a valid P-256 private key (PEM .p8)', undefined, { code: 'invalid_credentials' });
  }
}

function reasonOf(body: unknown): string | undefined {
  return isPlainObject(body) && typeof body.reason === 'string' ? body.reason : undefined;
}
