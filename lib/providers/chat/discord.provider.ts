import { Injectable } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { type VendorFailure, pickString, vendorRequest } from '../vendor-http';
import { asRecord, chatWebhookUrl, errorBody, secondsToMs, withCtaLine, withOverrides, withRetryAfter } from './chat-vendor';

/** What Discord's execute-webhook endpoint gets (JSON). @publicApi */
export interface DiscordWebhookBody {
  /** The rendered content, with the call to action's URL on a line of its own. */
  content: string;
  /** Rich embeds, when the trigger's overrides bring them. */
  embeds?: unknown[];
}

/**
 * Discord through a channel webhook: `POST <the subscriber's webhook URL>?wait=true` (its `channels`
 * setting for `discord`, else the integration's `credentials.webhookUrl`; other query parameters
 * such as `thread_id` are kept) with a JSON {@link DiscordWebhookBody}. The webhook URL holds its own
 * token, so there is no other authentication and no credential is required; it is a secret and never
 * logged.
 *
 * `wait=true` makes Discord answer 200 with the created message object once it is saved; its `id` is
 * stored as the message's provider id. Errors are JSON `{ code, message }` (e.g. 404 `{ code: 10015,
 * message: 'Unknown Webhook' }`, 400 `{ code: 50006, ... }`): permanent, with `code` as the errorId.
 * 429 (`{ message, retry_after: <seconds>, global }` plus a `Retry-After` header) and 5xx are
 * transient; the wait Discord asks for is honoured. The call to action's URL is appended to
 * `content` (Discord links it). The trigger's `overrides.providers.discord` are spread over the body
 * in Discord's field names (`username`, `avatar_url`, `embeds`, `allowed_mentions`, `tts`, ...).
 * Discord webhooks take no idempotency key: a retry after a lost answer may post twice.
 * @publicApi
 */
@Injectable()
export class DiscordProvider extends DeliveryProvider {
  readonly providerId = 'discord';
  readonly channel = 'chat';

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const url = chatWebhookUrl('Discord', message, credentials);
    url.searchParams.set('wait', 'true');
    const body: DiscordWebhookBody = { content: withCtaLine(message.content, message.ctaUrl) };
    try {
      const response = await vendorRequest('Discord', { url, json: withOverrides(body, message.overrides), timeoutMs: message.timeoutMs }, describeFailure);
      return { id: pickString(response.body, 'id'), raw: { status: response.status, body: response.body } };
    } catch (error) {
      // The 429 body says how long to wait even when a proxy dropped the Retry-After header.
      throw withRetryAfter(error, secondsToMs(asRecord(errorBody(error))?.retry_after));
    }
  }
}

function describeFailure(body: unknown): VendorFailure | undefined {
  const message = pickString(body, 'message');
  const code = pickString(body, 'code');
  if (!message && !code) return typeof body === 'string' && body.trim() ? { message: body.trim().slice(0, 200) } : undefined;
  return { message: message ?? code, code };
}
