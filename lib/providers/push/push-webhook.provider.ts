import { Injectable } from '@nestjs/common';
import { type DeliveryMessage, DeliveryError } from '../delivery-provider';
import { WebhookDeliveryProvider, type WebhookEnvelope, webhookEnvelope } from '../webhook-request';

/**
 * What the `push-webhook` provider POSTs (JSON).
 * @publicApi
 */
export interface PushWebhookBody extends WebhookEnvelope {
  /** The subscriber's device tokens for `push-webhook` (never empty). */
  target: string[];
  /** The rendered title (`''` when the step has none). */
  title: string;
  /** The rendered body. */
  content: string;
  /** The trigger payload. */
  payload: Record<string, unknown>;
  /** The trigger's `overrides.providers['push-webhook']`, or `{}`. */
  overrides: Record<string, unknown>;
}

/**
 * Push through a webhook of the host: POSTs a {@link PushWebhookBody} to `credentials.webhookUrl`
 * with an `idempotency-key` header (the job id) and, when `credentials.secretKey` is set, an
 * `x-signature` header (hex HMAC-SHA256 of the raw body). Any 2xx answer means sent; the answer's
 * JSON `id`, if any, becomes the message's provider id.
 * @publicApi
 */
@Injectable()
export class PushWebhookProvider extends WebhookDeliveryProvider {
  readonly providerId = 'push-webhook';
  readonly channel = 'push';

  protected buildBody(message: DeliveryMessage): PushWebhookBody {
    const target = (message.to.deviceTokens ?? []).filter((token) => typeof token === 'string' && token.trim() !== '');
    if (target.length === 0) throw new DeliveryError('The subscriber has no push-webhook device tokens');
    return {
      ...webhookEnvelope(message),
      target,
      title: message.title ?? '',
      content: message.content,
      payload: message.payload,
      overrides: message.overrides,
    };
  }
}
