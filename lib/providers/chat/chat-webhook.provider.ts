import { Injectable } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import type { DeliveryMessage } from '../delivery-provider';
import { credentialString, WebhookDeliveryProvider, type WebhookEnvelope, webhookEnvelope } from '../webhook-request';

/**
 * What the `chat-webhook` provider POSTs (JSON). Absent optional fields are omitted.
 * @publicApi
 */
export interface ChatWebhookBody extends WebhookEnvelope {
  /** The rendered text. */
  content: string;
  /** The channel from the subscriber's chat settings, when it has one. */
  channel?: string;
  /** The call to action's rendered URL. */
  ctaUrl?: string;
  /** The trigger payload. */
  payload: Record<string, unknown>;
  /** The trigger's `overrides.providers['chat-webhook']`, or `{}`. */
  overrides: Record<string, unknown>;
}

/**
 * Chat through a webhook: POSTs a {@link ChatWebhookBody} to the subscriber's own webhook URL (its
 * `chat-webhook` channel credentials) when it has one, else to `credentials.webhookUrl` of the
 * integration. Sends an `idempotency-key` header (the job id) and, when `credentials.secretKey` is set,
 * an `x-signature` header (hex HMAC-SHA256 of the raw body). Any 2xx answer means sent.
 * @publicApi
 */
@Injectable()
export class ChatWebhookProvider extends WebhookDeliveryProvider {
  readonly providerId = 'chat-webhook';
  readonly channel = 'chat';

  protected override webhookUrl(message: DeliveryMessage, credentials: IntegrationCredentials): string | undefined {
    // A subscriber's own URL wins: it is how one integration reaches many rooms or workspaces.
    const own = message.to.webhookUrl?.trim();
    return own ? own : credentialString(credentials, 'webhookUrl');
  }

  protected override missingUrlMessage(): string {
    return 'The subscriber has no chat-webhook webhookUrl and the integration has no credentials.webhookUrl';
  }

  protected buildBody(message: DeliveryMessage): ChatWebhookBody {
    return {
      ...webhookEnvelope(message),
      content: message.content,
      channel: message.to.channel,
      ctaUrl: message.ctaUrl,
      payload: message.payload,
      overrides: message.overrides,
    };
  }
}
