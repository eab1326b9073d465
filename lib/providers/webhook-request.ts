import { createHmac, timingSafeEqual } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { IntegrationCredentials } from '../integrations/integrations.service';
import { type DeliveryMessage, DeliveryError, DeliveryProvider, type DeliveryResult } from './delivery-provider';
import { truncate, VENDOR_RESPONSE_BODY_LIMIT, vendorRequest } from './vendor-http';

/** Header carrying the hex HMAC-SHA256 of the raw request body, when the integration has a `secretKey`. @publicApi */
export const WEBHOOK_SIGNATURE_HEADER = 'x-signature';
/** Header carrying the job id, stable across redeliveries, so receivers can drop duplicates. @publicApi */
export const WEBHOOK_IDEMPOTENCY_HEADER = 'idempotency-key';
/** How long a webhook may take to answer before the send fails. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
/** How much of a webhook's answer is kept in `DeliveryError.raw` / `DeliveryResult.raw` (characters). */
export const WEBHOOK_RESPONSE_BODY_LIMIT = VENDOR_RESPONSE_BODY_LIMIT;

/**
 * The hex HMAC-SHA256 of `rawBody` keyed with `secretKey`: the value of the `x-signature` header.
 * Receivers compute it over the exact bytes they received (before any JSON parsing).
 * @publicApi
 */
export function signWebhookBody(rawBody: string | Uint8Array, secretKey: string): string {
  return createHmac('sha256', secretKey).update(rawBody).digest('hex');
}

/**
 * Checks an `x-signature` header against the raw body, in constant time. For hosts writing receivers.
 * @publicApi
 */
export function verifyWebhookSignature(rawBody: string | Uint8Array, signature: string | undefined | null, secretKey: string): boolean {
  if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/i.test(signature)) return false;
  return timingSafeEqual(Buffer.from(signWebhookBody(rawBody, secretKey), 'hex'), Buffer.from(signature, 'hex'));
}

/** One webhook call. */
export interface WebhookRequest {
  /** An absolute http(s) URL. Treated as a secret (chat webhook URLs usually are): never logged nor echoed. */
  url: string;
  /** Serialized once with `JSON.stringify`; those exact bytes are sent and signed. */
  body: object;
  /** Sent as the `idempotency-key` header. */
  idempotencyKey: string;
  /** When set, the body is signed into the `x-signature` header. */
  secretKey?: string;
  /** @default DEFAULT_WEBHOOK_TIMEOUT_MS */
  timeoutMs?: number;
}

/** What a webhook answered; `body` is the parsed JSON when it fits the limit, else the (truncated) text. */
export interface WebhookResponseRaw {
  status: number;
  body: unknown;
}

/**
 * POSTs a JSON body to a webhook and translates the outcome into the provider contract.
 * @returns `{ id: the answer's JSON "id" if any, raw: { status, body } }` for a 2xx answer.
 * @throws DeliveryError `Webhook responded with <status>` (raw `{ status, body }`) for any other status,
 *   or a timeout / network failure (raw `{ error }`).
 */
export async function postWebhook(request: WebhookRequest): Promise<DeliveryResult> {
  const timeoutMs = request.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const url = parseWebhookUrl(request.url);
  const rawBody = JSON.stringify(request.body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'nest-notifications',
    [WEBHOOK_IDEMPOTENCY_HEADER]: request.idempotencyKey,
  };
  if (request.secretKey) headers[WEBHOOK_SIGNATURE_HEADER] = signWebhookBody(rawBody, request.secretKey);
  if (url.username || url.password) {
    // fetch refuses URLs with credentials (and its error quotes the URL, password included): send them
    // as Basic auth, which is what `https://user:pass@host/hook` means.
    const user = decodeUserInfo(url.username);
    const password = decodeUserInfo(url.password);
    headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }

  // A redirect would resend the signed body (or a GET without it) to a host the integration never
  // named; the receiver should be configured with its final URL instead, so a 3xx is a failure.
  const response = await vendorRequest('Webhook', { url, headers, body: rawBody, timeoutMs });
  return { id: extractId(response.body), raw: { status: response.status, body: capBody(response.body) } satisfies WebhookResponseRaw };
}

/**
 * Base of the generic webhook providers: resolves the URL, builds the channel's body, and posts it with
 * {@link postWebhook}. Subclasses only describe their channel's body.
 */
export abstract class WebhookDeliveryProvider extends DeliveryProvider {
  /** How long the receiver may take to answer; by default the message's `timeoutMs` (`delivery.timeoutSeconds`). */
  protected timeoutMs?: number;
  private readonly logger = new Logger(this.constructor.name);

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const url = this.resolveUrl(message, credentials);
    const body = this.buildBody(message, credentials);
    const startedAt = Date.now();
    try {
      const result = await postWebhook({
        url,
        body,
        idempotencyKey: message.jobId,
        secretKey: credentialString(credentials, 'secretKey'),
        timeoutMs: this.timeoutMs ?? message.timeoutMs,
      });
      this.logger.debug(`Job ${message.jobId}: webhook accepted the message in ${Date.now() - startedAt} ms`);
      return result;
    } catch (error) {
      // Only the outcome: the URL, body and answer may carry secrets or personal data.
      this.logger.debug(`Job ${message.jobId}: webhook delivery failed after ${Date.now() - startedAt} ms: ${(error as Error).message}`);
      throw error;
    }
  }

  /** The channel's request body (see each provider's body interface). Throws DeliveryError when a recipient field is missing. */
  protected abstract buildBody(message: DeliveryMessage, credentials: IntegrationCredentials): object;

  /** The URL to POST to: `credentials.webhookUrl` unless a subclass knows better. */
  protected webhookUrl(_message: DeliveryMessage, credentials: IntegrationCredentials): string | undefined {
    return credentialString(credentials, 'webhookUrl');
  }

  /** What a missing URL error says; subclasses with other URL sources explain them. */
  protected missingUrlMessage(): string {
    return `The ${this.providerId} integration has no credentials.webhookUrl`;
  }

  private resolveUrl(message: DeliveryMessage, credentials: IntegrationCredentials): string {
    const url = this.webhookUrl(message, credentials);
    if (!url) throw new DeliveryError(this.missingUrlMessage());
    return url;
  }
}

/**
 * Fields every generic webhook body carries, so a receiver can correlate deliveries with notifications
 * and tell redeliveries apart (`jobId` equals the `idempotency-key` header).
 * @publicApi
 */
export interface WebhookEnvelope {
  /** The job that sends the message; the same on every redelivery. */
  jobId: string;
  /** The trigger's transaction id. */
  transactionId: string;
  environmentId: string;
  /** The workflow's trigger identifier. */
  workflowIdentifier: string;
  subscriberId: string;
}

/** The envelope fields of a message. */
export function webhookEnvelope(message: DeliveryMessage): WebhookEnvelope {
  return {
    jobId: message.jobId,
    transactionId: message.transactionId,
    environmentId: message.environmentId,
    workflowIdentifier: message.workflowIdentifier,
    subscriberId: message.to.subscriberId,
  };
}

/** A credential as a non-empty string, or undefined (credentials also hold booleans and objects). */
export function credentialString(credentials: IntegrationCredentials, name: string): string | undefined {
  const value = credentials[name];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** A recipient field that must be present, or a DeliveryError naming what is missing. */
export function requireRecipientField<T>(value: T | null | undefined, description: string): T {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    throw new DeliveryError(`The subscriber has no ${description}`);
  }
  return value;
}

/** The URL, checked to be absolute http(s). Error messages leave it out: it is often the webhook's only secret. */
function parseWebhookUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DeliveryError('The webhook URL is not a valid absolute URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new DeliveryError('The webhook URL must use http or https');
  }
  return parsed;
}

/** Percent-decoded URL user info; a malformed escape is kept as written rather than failing the send. */
function decodeUserInfo(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function extractId(parsed: unknown): string | undefined {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const id = (parsed as Record<string, unknown>).id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/** A large answer is kept as truncated text: raw lands in execution details and must stay small. */
function capBody(body: unknown): unknown {
  if (typeof body === 'string') return truncate(body);
  const text = JSON.stringify(body ?? null);
  return text.length > WEBHOOK_RESPONSE_BODY_LIMIT ? truncate(text) : body;
}
