import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryError } from '../delivery-provider';
import { credentialString } from '../webhook-request';
import { isPlainObject } from '../vendor-http';

/**
 * Helpers shared by the chat vendors that post to a webhook URL (Slack incoming webhooks, Discord,
 * Microsoft Teams, Mattermost). Webhook URLs carry their own secret (the token in the path), so
 * nothing here ever puts one in an error text, a log line or a `raw` answer.
 */

/** What a CTA link or button reads. */
export const CTA_LABEL = 'Open';

/**
 * The URL to post to: the subscriber's own webhook URL for this provider (its `channels` settings)
 * when it has one, else the integration's `credentials.webhookUrl` (one channel for every subscriber).
 * Checked to be an absolute http(s) URL without user info: `fetch` would otherwise fail with an error
 * quoting the URL, and with it the webhook's secret.
 * @throws DeliveryError (permanent) when there is none or it is not usable.
 */
export function chatWebhookUrl(vendor: string, message: DeliveryMessage, credentials: IntegrationCredentials): URL {
  const own = message.to.webhookUrl?.trim();
  const url = own ? own : credentialString(credentials, 'webhookUrl');
  if (!url) throw new DeliveryError(`The subscriber has no ${vendor} webhook URL and the integration has no credentials.webhookUrl`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DeliveryError(`The ${vendor} webhook URL is not a valid absolute URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new DeliveryError(`The ${vendor} webhook URL must use http or https`);
  if (parsed.username || parsed.password) throw new DeliveryError(`The ${vendor} webhook URL must not contain user info`);
  return parsed;
}

/** `text` with the call to action's URL on a line of its own (chat clients turn bare URLs into links). */
export function withCtaLine(text: string, ctaUrl: string | undefined): string {
  if (!ctaUrl) return text;
  return text ? `${text}\n\n${ctaUrl}` : ctaUrl;
}

/**
 * The trigger's overrides for the provider, spread over the vendor body: the overrides are written in
 * the vendor's own field names (`{ username: 'Bot', embeds: [...] }`), so a key present in both wins
 * from the overrides.
 */
export function withOverrides<T extends object>(body: T, overrides: Record<string, unknown>): T & Record<string, unknown> {
  return { ...body, ...overrides };
}

/**
 * A transient DeliveryError with `retryAfterMs` set, when the vendor said how long to wait somewhere
 * `vendorRequest` does not look (a JSON body field rather than the `Retry-After` header).
 */
export function withRetryAfter(error: unknown, retryAfterMs: number | undefined): unknown {
  if (!(error instanceof DeliveryError) || !error.transient || error.retryAfterMs !== undefined || !retryAfterMs) return error;
  return new DeliveryError(error.message, error.raw, { transient: true, retryAfterMs, code: error.code });
}

/** `value` seconds as milliseconds, when it is a positive number (or a numeric string). */
export function secondsToMs(value: unknown): number | undefined {
  const seconds = typeof value === 'string' ? Number(value) : value;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds * 1000) : undefined;
}

/** The body of a `DeliveryError`'s raw `{ status, body }`, if it has one. */
export function errorBody(error: unknown): unknown {
  if (!(error instanceof DeliveryError)) return undefined;
  const raw = error.raw;
  return typeof raw === 'object' && raw !== null && 'body' in raw ? (raw as { body: unknown }).body : undefined;
}

/** A plain JSON object (not an array), or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return isPlainObject(value) ? value : undefined;
}
