import { Injectable } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { type VendorFailure, pickString, vendorRequest } from '../vendor-http';
import { chatWebhookUrl, withCtaLine, withOverrides } from './chat-vendor';

/** What a Mattermost incoming webhook gets (JSON). @publicApi */
export interface MattermostWebhookBody {
  /** The rendered content (Markdown), with the call to action's URL on a line of its own. */
  text: string;
  /** The subscriber's `channel` setting, when it has one: overrides the webhook's default channel. */
  channel?: string;
}

/**
 * Mattermost through an incoming webhook: `POST <the subscriber's webhook URL>` (its `channels`
 * setting for `mattermost`, else the integration's `credentials.webhookUrl`) with a JSON
 * {@link MattermostWebhookBody}. The URL (`https://<server>/hooks/<key>`) is the only authentication,
 * so no credential is required; it is a secret and never logged.
 *
 * Mattermost answers 200 `ok` (text) without a message id; its `X-Request-Id` header, the only
 * identifier of the post it gives, is stored as the message's provider id when present. Errors are
 * Mattermost's JSON `{ id, message, detailed_error, status_code }` (e.g. 400
 * `web.incoming_webhook.invalid.app_error`): permanent, with `id` as the errorId; 429 and 5xx are
 * transient. The call to action's URL is appended to the text (Mattermost links it). The trigger's
 * `overrides.providers.mattermost` are spread over the body in Mattermost's field names (`channel`,
 * `username`, `icon_url`, `icon_emoji`, `attachments`, `props`, `priority`, ...). Incoming webhooks
 * take no idempotency key: a retry after a lost answer may post twice.
 * @publicApi
 */
@Injectable()
export class MattermostProvider extends DeliveryProvider {
  readonly providerId = 'mattermost';
  readonly channel = 'chat';

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const body: MattermostWebhookBody = { text: withCtaLine(message.content, message.ctaUrl) };
    const channel = message.to.channel?.trim();
    if (channel) body.channel = channel;
    const response = await vendorRequest(
      'Mattermost',
      { url: chatWebhookUrl('Mattermost', message, credentials), json: withOverrides(body, message.overrides), timeoutMs: message.timeoutMs },
      describeFailure,
    );
    return { id: response.headers.get('x-request-id') ?? undefined, raw: { status: response.status, body: response.body } };
  }
}

function describeFailure(body: unknown): VendorFailure | undefined {
  const message = pickString(body, 'message');
  const id = pickString(body, 'id');
  if (!message && !id) return typeof body === 'string' && body.trim() ? { message: body.trim().slice(0, 200) } : undefined;
  return { message: message ?? id, code: id };
}
