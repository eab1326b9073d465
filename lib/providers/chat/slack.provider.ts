import { Injectable } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryConnection, DeliveryError, type DeliveryMessage, DeliveryProvider, type DeliveryRecipient, type DeliveryResult } from '../delivery-provider';
import { type VendorFailure, pickString, retryAfterMs, vendorRequest, vendorUrl } from '../vendor-http';
import { asRecord, CTA_LABEL, chatWebhookUrl, withOverrides } from './chat-vendor';

/** Slack's Web API base; `credentials.baseUrl` replaces it (tests, Slack GovSlack `https://slack-gov.com/api`). */
export const SLACK_API_BASE = 'https://slack.com/api';

/** Slack refuses a `section` block whose text is longer than this (characters). */
const SECTION_TEXT_LIMIT = 3000;

/**
 * Web API errors (`{ ok: false, error }`) that say "try again later" rather than "this will never
 * work": rate limiting and Slack-side failures. Every other error (`channel_not_found`,
 * `not_in_channel`, `invalid_auth`, `is_archived`, `msg_too_long`, ...) is permanent.
 */
const TRANSIENT_API_ERRORS = new Set(['ratelimited', 'rate_limited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

/**
 * What Slack gets: the same shape for an incoming webhook and `chat.postMessage` (which adds
 * `channel`). @publicApi
 */
export interface SlackMessageBody {
  /** The rendered content; with `blocks` Slack uses it as the notification fallback. */
  text: string;
  /** Present when the step has a call to action: a `section` with the text and an `actions` block with a link button. */
  blocks?: SlackBlock[];
  /** `chat.postMessage` only: the conversation id (or name) to post to. */
  channel?: string;
}

/** The Block Kit blocks this provider builds. */
export type SlackBlock =
  | { type: 'section'; text: { type: 'mrkdwn'; text: string } }
  | { type: 'actions'; elements: Array<{ type: 'button'; text: { type: 'plain_text'; text: string }; url: string }> };

/**
 * Slack, two ways:
 *
 * - **Workspace app** — when the worker found a channel connection of the subscriber for this
 *   integration (`message.to.connection`, an OAuth workspace token): `POST {base}/chat.postMessage`
 *   (base `https://slack.com/api`, or `credentials.baseUrl`) with `Authorization: Bearer <accessToken>`
 *   and a JSON {@link SlackMessageBody} whose `channel` is the subscriber's `channel` setting (the
 *   trigger's `overrides.providers.slack.channel` wins). Slack answers 200 `{ ok: true, channel, ts }`;
 *   `ts` is stored as the message's provider id. `{ ok: false, error }` fails with `error` as the
 *   message's errorId: permanent, except `ratelimited` and Slack-side errors (`internal_error`,
 *   `fatal_error`, `service_unavailable`, `request_timeout`), which are transient and honour
 *   `Retry-After`. HTTP 429 (Slack's rate limit answer) and 5xx are transient too.
 * - **Incoming webhook** — otherwise: `POST` the subscriber's incoming webhook URL (its `channels`
 *   setting for `slack`, else the integration's `credentials.webhookUrl`) with the JSON body (no
 *   `channel`: a webhook posts where it was installed). Slack answers 200 `ok` and gives no message id
 *   (none is stored); errors are short texts with a status: 400 `invalid_payload`, 403
 *   `action_prohibited`, 404 `channel_not_found` / `no_service`, 410 `channel_is_archived` (permanent,
 *   the text becomes the errorId), 429 and 5xx (transient).
 *
 * The call to action becomes a `Open` link button (`blocks`: a `mrkdwn` section with the content and
 * an `actions` block); when the content is too long for a section (3000 characters) the URL is
 * appended to the text as a `<url|Open>` link instead. The trigger's `overrides.providers.slack` are
 * spread over the body in Slack's own field names (`blocks`, `attachments`, `thread_ts`, `username`,
 * `icon_emoji`, `unfurl_links`, ...). Slack has no idempotency key: a retry after a lost answer may
 * post twice. Credentials: none are required (the token comes from the connection, the URL from the
 * subscriber); the webhook URL and the access token are secrets and are never logged.
 * @publicApi
 */
@Injectable()
export class SlackProvider extends DeliveryProvider {
  readonly providerId = 'slack';
  readonly channel = 'chat';

  /** A webhook URL (the subscriber's or the integration's), or a workspace connection and a channel to post to. */
  override canReach(to: DeliveryRecipient, credentials: IntegrationCredentials): boolean {
    return super.canReach(to, credentials) || (isConnection(to.connection) && hasText(to.channel));
  }

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const connection = message.to.connection;
    const channel = this.targetChannel(message);
    if (isConnection(connection) && channel) return this.postMessage(message, credentials, connection, channel);
    if (isConnection(connection) && !message.to.webhookUrl && !credentials.webhookUrl) {
      throw new DeliveryError('The subscriber has a Slack connection but no channel to post to (its slack channel setting or overrides.channel)');
    }
    return this.postToWebhook(message, credentials);
  }

  private async postMessage(message: DeliveryMessage, credentials: IntegrationCredentials, connection: DeliveryConnection, channel: string): Promise<DeliveryResult> {
    const response = await vendorRequest(
      'Slack',
      {
        url: vendorUrl(credentials, SLACK_API_BASE, '/chat.postMessage'),
        headers: {
          authorization: `Bearer ${connection.accessToken}`,
          // Without the charset Slack answers with a `missing_charset` warning.
          'content-type': 'application/json; charset=utf-8',
        },
        json: withOverrides({ ...this.body(message), channel }, message.overrides),
        timeoutMs: message.timeoutMs,
      },
      describeApiFailure,
    );
    const answer = asRecord(response.body);
    if (answer?.ok !== true) {
      // The Web API reports its errors in a 200 answer.
      const error = pickString(answer, 'error') ?? 'unknown_error';
      const transient = TRANSIENT_API_ERRORS.has(error);
      throw new DeliveryError(
        `Slack chat.postMessage failed: ${error}`,
        { status: response.status, body: response.body },
        { code: error, transient, retryAfterMs: transient ? retryAfterMs(response.headers) : undefined },
      );
    }
    return { id: pickString(answer, 'ts'), raw: { status: response.status, body: response.body } };
  }

  private async postToWebhook(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const response = await vendorRequest(
      'Slack',
      {
        url: chatWebhookUrl('Slack', message, credentials),
        json: withOverrides(this.body(message), message.overrides),
        timeoutMs: message.timeoutMs,
      },
      describeWebhookFailure,
    );
    return { raw: { status: response.status, body: response.body } };
  }

  /** The trigger's `overrides.channel` when set, else the subscriber's channel setting. */
  private targetChannel(message: DeliveryMessage): string | undefined {
    const override = message.overrides.channel;
    if (typeof override === 'string' && override.trim() !== '') return override.trim();
    return message.to.channel?.trim() || undefined;
  }

  private body(message: DeliveryMessage): SlackMessageBody {
    const { content, ctaUrl } = message;
    if (!ctaUrl) return { text: content };
    if (content.length > SECTION_TEXT_LIMIT || content.trim() === '') return { text: content ? `${content}\n<${ctaUrl}|${CTA_LABEL}>` : `<${ctaUrl}|${CTA_LABEL}>` };
    return {
      text: content,
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: content } },
        { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: CTA_LABEL }, url: ctaUrl }] },
      ],
    };
  }
}

/** `{ ok: false, error: 'ratelimited' }` (and any JSON error body of the Web API). */
function describeApiFailure(body: unknown): VendorFailure | undefined {
  const error = pickString(body, 'error');
  return error ? { message: error, code: error } : undefined;
}

/** Incoming webhooks answer errors as a short text (`invalid_payload`, `no_service`, ...). */
function describeWebhookFailure(body: unknown): VendorFailure | undefined {
  if (typeof body !== 'string') return describeApiFailure(body);
  const text = body.trim();
  if (!text) return undefined;
  return /^[a-z_]+$/.test(text) ? { message: text, code: text } : { message: text.slice(0, 200) };
}

function isConnection(connection: DeliveryConnection | undefined): connection is DeliveryConnection {
  return hasText(connection?.accessToken);
}

function hasText(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}
