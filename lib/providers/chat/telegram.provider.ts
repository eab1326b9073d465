import { Injectable } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { DeliveryError, type DeliveryMessage, DeliveryProvider, type DeliveryRecipient, type DeliveryResult } from '../delivery-provider';
import { REDACTED, redactSecrets } from '../redact';
import { type VendorFailure, pickString, vendorRequest, vendorUrl } from '../vendor-http';
import { credentialString } from '../webhook-request';
import { asRecord, errorBody, secondsToMs, withCtaLine, withOverrides, withRetryAfter } from './chat-vendor';

/** The Bot API's base; `credentials.baseUrl` replaces it (tests, a local Bot API server). */
export const TELEGRAM_API_BASE = 'https://api.telegram.org';

/** What `sendMessage` gets (JSON). @publicApi */
export interface TelegramSendMessageBody {
  /** The subscriber's `channel` setting for `telegram`: a chat id (`123456789`, `-100…`) or `@channelusername`. */
  chat_id: string;
  /** The rendered content, with the call to action's URL on a line of its own (Telegram links it). */
  text: string;
}

/**
 * Telegram through the Bot API: `POST {base}/bot<token>/sendMessage` (base `https://api.telegram.org`,
 * or `credentials.baseUrl`) with a JSON {@link TelegramSendMessageBody}. The bot token
 * (`credentials.apiToken`, the name Novu stores a Telegram bot token under; required) authenticates
 * as part of the URL path, so the URL is never logged and the token is scrubbed from every error.
 * The chat comes from the subscriber's `channels` setting for `telegram`: its `credentials.channel`
 * is the chat id (no webhook URL is involved).
 *
 * Telegram answers `{ ok: true, result: { message_id, ... } }`; `message_id` is stored as the
 * message's provider id. Errors are `{ ok: false, error_code, description, parameters? }` with the
 * same HTTP status: permanent (400 `Bad Request: chat not found`, 401, 403 `Forbidden: bot was
 * blocked by the user`) with `error_code` as the errorId, except 429 (`parameters.retry_after`
 * seconds, honoured) and 5xx, which are transient. The trigger's `overrides.providers.telegram` are
 * spread over the body in the Bot API's field names (`parse_mode`, `disable_notification`,
 * `reply_markup`, `link_preview_options`, `message_thread_id`, ...). The Bot API has no idempotency
 * key: a retry after a lost answer may send twice.
 * @publicApi
 */
@Injectable()
export class TelegramProvider extends DeliveryProvider {
  readonly providerId = 'telegram';
  readonly channel = 'chat';
  override readonly requiredCredentials = ['apiToken'] as const;

  /** A chat id (the subscriber's `channel` setting for `telegram`) is what reaches a Telegram user. */
  override canReach(to: DeliveryRecipient): boolean {
    return typeof to.channel === 'string' && to.channel.trim() !== '';
  }

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const token = credentialString(credentials, 'apiToken');
    if (!token) throw new DeliveryError('The telegram integration has no credentials.apiToken (the bot token)');
    const chatId = message.to.channel?.trim();
    if (!chatId) throw new DeliveryError('The subscriber has no telegram chat id (the channel setting of its telegram channel)');

    let url: URL;
    try {
      url = new URL(vendorUrl(credentials, TELEGRAM_API_BASE, `/bot${token}/sendMessage`));
    } catch {
      throw new DeliveryError('The telegram credentials.baseUrl is not a valid absolute URL');
    }
    const body: TelegramSendMessageBody = { chat_id: chatId, text: withCtaLine(message.content, message.ctaUrl) };
    try {
      const response = await vendorRequest('Telegram', { url, json: withOverrides(body, message.overrides), timeoutMs: message.timeoutMs }, describeFailure);
      const answer = asRecord(response.body);
      if (answer?.ok === false) {
        throw new DeliveryError(`Telegram responded with ${response.status}: ${pickString(answer, 'description') ?? 'not ok'}`, { status: response.status, body: response.body }, {
          code: pickString(answer, 'error_code'),
        });
      }
      return { id: pickString(answer, 'result', 'message_id'), raw: { status: response.status, body: response.body } };
    } catch (error) {
      const retryAfter = secondsToMs(asRecord(asRecord(errorBody(error))?.parameters)?.retry_after);
      throw scrubToken(withRetryAfter(error, retryAfter), token);
    }
  }
}

function describeFailure(body: unknown): VendorFailure | undefined {
  const description = pickString(body, 'description');
  const code = pickString(body, 'error_code');
  return description || code ? { message: description ?? code, code } : undefined;
}

/**
 * The error without the bot token: it is part of the request URL, which network errors may quote
 * (the worker redacts credentials from `raw` too, but not from the error text).
 */
function scrubToken(error: unknown, token: string): unknown {
  if (!(error instanceof DeliveryError)) return error;
  if (!error.message.includes(token) && !JSON.stringify(error.raw ?? null).includes(token)) return error;
  return new DeliveryError(error.message.split(token).join(REDACTED), redactSecrets(error.raw, [token]), {
    transient: error.transient,
    retryAfterMs: error.retryAfterMs,
    code: error.code,
  });
}
