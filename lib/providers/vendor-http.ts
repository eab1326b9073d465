import { Agent as HttpAgent, type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { IntegrationCredentials } from '../integrations/integrations.service';
import { DeliveryError } from './delivery-provider';

/** How much of a vendor's answer is kept in `DeliveryError.raw` / `DeliveryResult.raw` (characters). */
export const VENDOR_RESPONSE_BODY_LIMIT = 2048;

/** One call to a vendor's HTTP API. Exactly one of `json`, `form` and `body` (or none, for a GET). */
export interface VendorRequest {
  /** @default 'POST' */
  method?: string;
  url: string | URL;
  /** Names as the vendor documents them; `content-type` is set for `json` and `form`. */
  headers?: Record<string, string>;
  /** Sent as `application/json`. */
  json?: unknown;
  /** Sent as `application/x-www-form-urlencoded`; undefined values are left out, arrays repeat the key. */
  form?: Record<string, string | number | boolean | undefined | ReadonlyArray<string>>;
  /** Sent as is (set `content-type` yourself). */
  body?: string | Uint8Array;
  /** The message's `timeoutMs`: the answer must be complete by then. */
  timeoutMs: number;
}

/** The headers of a vendor's answer, read by name (case-insensitive), like fetch's `Headers.get`. */
export interface VendorHeaders {
  get(name: string): string | null;
}

/** A vendor's 2xx answer. */
export interface VendorResponse {
  status: number;
  headers: VendorHeaders;
  /** The parsed JSON, or the text when it is not JSON (`undefined` when empty). */
  body: unknown;
}

/** What a vendor's error body says, for the error text and the message's `errorId`. */
export interface VendorFailure {
  message?: string;
  code?: string;
}

/**
 * Calls a vendor's HTTP API and translates the outcome into the provider contract:
 * - 2xx → the parsed answer;
 * - 408, 429, 5xx, a network error or a timeout → a transient {@link DeliveryError} (retried through
 *   the queue), honouring `Retry-After`;
 * - any other status (other 4xx, 3xx: redirects are not followed, a vendor API never needs one) → a
 *   permanent DeliveryError.
 *
 * Error texts read `<vendor> responded with <status>: <what describeFailure found>`; `raw` holds
 * `{ status, body }` with the body capped at {@link VENDOR_RESPONSE_BODY_LIMIT} characters. Request
 * headers (credentials) are never part of an error.
 * @param vendor The vendor's name as users know it (`SendGrid`), first word of every error text.
 * @param describeFailure Reads the vendor's error body (message and code), when it has a known shape.
 */
export async function vendorRequest(
  vendor: string,
  request: VendorRequest,
  describeFailure?: (body: unknown) => VendorFailure | undefined,
): Promise<VendorResponse> {
  const headers: Record<string, string> = { 'user-agent': 'nest-notifications', ...request.headers };
  let body: string | Uint8Array | undefined = request.body;
  if (request.json !== undefined) {
    body = JSON.stringify(request.json);
    headers['content-type'] ??= 'application/json';
  } else if (request.form) {
    body = formBody(request.form);
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
  }

  let response: RawAnswer;
  try {
    response = await send(request.url, request.method ?? 'POST', headers, body, request.timeoutMs);
  } catch (error) {
    const described = describeError(error);
    if (isTimeout(error)) {
      throw new DeliveryError(`${vendor} did not answer within ${request.timeoutMs} ms`, { error: described }, { transient: true, code: 'timeout' });
    }
    throw new DeliveryError(`${vendor} request failed: ${described}`, { error: described }, { transient: true, code: 'network_error' });
  }

  const { text } = response;
  const parsed = parseJson(text);
  const status = response.status;
  if (status >= 200 && status <= 299) return { status, headers: response.headers, body: parsed ?? (text === '' ? undefined : text) };

  let failure: VendorFailure | undefined;
  try {
    failure = describeFailure?.(parsed ?? text);
  } catch {
    failure = undefined;
  }
  const transient = isTransientStatus(status);
  throw new DeliveryError(
    `${vendor} responded with ${status}${failure?.message ? `: ${failure.message}` : ''}`,
    { status, body: parsed !== undefined && text.length <= VENDOR_RESPONSE_BODY_LIMIT ? parsed : truncate(text) },
    { transient, retryAfterMs: transient ? retryAfterMs(response.headers) : undefined, code: failure?.code },
  );
}

/** An answer as read off the socket. */
interface RawAnswer {
  status: number;
  headers: VendorHeaders;
  text: string;
}

/** The most of an answer's body kept in memory; the rest is read and dropped (the connection stays usable). */
const MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * Kept-alive connections to vendors, shared by every provider: a send reuses an open (TLS) connection
 * instead of paying a handshake. Node's agents honour the vendor's `Keep-Alive: timeout`.
 */
const AGENTS = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/**
 * One HTTP exchange with node:http(s) rather than `fetch`: measured on the send path (bench/providers),
 * fetch with a timeout signal costs about five times the CPU per request (web streams, and an
 * `AbortSignal.timeout` per call), and a worker makes thousands of these a second. Redirects are not
 * followed; `timeoutMs` covers connecting, sending and reading the whole answer.
 */
function send(url: string | URL, method: string, headers: Record<string, string>, body: string | Uint8Array | undefined, timeoutMs: number): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const target = typeof url === 'string' ? new URL(url) : url;
    const secure = target.protocol === 'https:';
    if (!secure && target.protocol !== 'http:') {
      reject(new Error(`unsupported protocol ${target.protocol}`));
      return;
    }
    const payload = typeof body === 'string' ? Buffer.from(body) : body;
    const requestHeaders: Record<string, string | number> = payload ? { ...headers, 'content-length': payload.byteLength } : headers;
    let settled = false;
    const finish = (error: Error | undefined, answer?: RawAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(answer!);
    };
    const request = (secure ? httpsRequest : httpRequest)(target, { method, headers: requestHeaders, agent: secure ? AGENTS.https : AGENTS.http }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_RESPONSE_BYTES) chunks.push(chunk);
      });
      response.on('error', (error) => finish(error));
      response.on('end', () =>
        finish(undefined, { status: response.statusCode ?? 0, headers: headerReader(response.headers), text: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    const timer = setTimeout(() => {
      const error = new Error(`no complete answer within ${timeoutMs} ms`);
      error.name = 'TimeoutError';
      finish(error);
      request.destroy(error);
    }, timeoutMs);
    request.on('error', (error) => finish(error));
    request.end(payload);
  });
}

function headerReader(headers: IncomingHttpHeaders): VendorHeaders {
  return {
    get: (name) => {
      const value = headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/** 408, 429 and 5xx: worth another try later. */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * A vendor endpoint: `credentials.baseUrl` (tests, private gateways, regional endpoints) when set,
 * else the vendor's public base, joined with `path`.
 * @example vendorUrl(credentials, 'https://api.sendgrid.com', '/v3/mail/send')
 */
export function vendorUrl(credentials: IntegrationCredentials, defaultBase: string, path: string): string {
  const configured = typeof credentials.baseUrl === 'string' && credentials.baseUrl.trim() !== '' ? credentials.baseUrl.trim() : defaultBase;
  return `${configured.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`;
}

/** `Basic <base64(user:password)>`. */
export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** The `Retry-After` (seconds or HTTP date) or `retry-after-ms` of an answer, in ms. */
export function retryAfterMs(headers: VendorHeaders): number | undefined {
  const ms = Number(headers.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds > 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isFinite(date) && date > Date.now() ? date - Date.now() : undefined;
}

/** A string from a vendor's answer (`body.a.b`), or undefined. */
export function pickString(value: unknown, ...path: Array<string | number>): string | undefined {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return typeof current === 'string' || typeof current === 'number' ? String(current) : undefined;
}

export function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function truncate(text: string, limit = VENDOR_RESPONSE_BODY_LIMIT): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

export function isTimeout(error: unknown): boolean {
  return errorName(error) === 'TimeoutError' || errorName(asErrorLike(error)?.cause) === 'TimeoutError';
}

/** The error and its cause (undici hides the socket error, e.g. ECONNREFUSED, in `cause`). */
export function describeError(error: unknown): string {
  const described = asErrorLike(error);
  if (!described) return String(error);
  const cause = asErrorLike(described.cause);
  return `${described.name}: ${described.message}${cause ? `: ${cause.message}` : ''}`;
}

function formBody(form: NonNullable<VendorRequest['form']>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(form)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value as readonly string[]) params.append(key, item);
    else params.append(key, String(value));
  }
  return params.toString();
}

/**
 * Duck-typed rather than `instanceof Error`: fetch's errors (DOMException, TypeError) come from Node's
 * own realm, which is not the caller's under test runners that sandbox modules (jest).
 */
function asErrorLike(value: unknown): { name: string; message: string; cause?: unknown } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { name, message } = value as { name?: unknown; message?: unknown };
  return typeof name === 'string' && typeof message === 'string' ? (value as { name: string; message: string; cause?: unknown }) : undefined;
}

function errorName(value: unknown): string | undefined {
  return asErrorLike(value)?.name;
}

/**
 * `body` with `fields` merged in: plain objects are merged key by key (recursively), anything else
 * (strings, numbers, arrays) replaces what the provider built. This is how a trigger reaches vendor
 * features the module does not model (templates, tags, tracking settings, message streams).
 */
export function mergeVendorFields<T extends Record<string, unknown>>(body: T, fields: Record<string, unknown>): T {
  const merged: Record<string, unknown> = { ...body };
  for (const [key, value] of Object.entries(fields)) {
    const current = merged[key];
    merged[key] = isPlainObject(current) && isPlainObject(value) ? mergeVendorFields(current, value) : value;
  }
  return merged as T;
}

/** Whether a value is a JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A credential the provider cannot send without. Integrations are validated against
 * `requiredCredentials` when created, so this only fails for integrations edited behind the module's back.
 * @throws DeliveryError (permanent, code `missing_credentials`) naming the credential.
 */
export function requireCredential(credentials: IntegrationCredentials, name: string, providerId: string): string {
  const value = credentials[name];
  if (typeof value !== 'string' || value.trim() === '') throw new DeliveryError(`The ${providerId} integration has no credentials.${name}`, undefined, { code: 'missing_credentials' });
  return value;
}
