import { Injectable } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import type { DeliveryMessage } from '../delivery-provider';
import { credentialString, requireRecipientField, WebhookDeliveryProvider, type WebhookEnvelope, webhookEnvelope } from '../webhook-request';

/**
 * What the `email-webhook` provider POSTs (JSON). Absent optional fields are omitted.
 * @publicApi
 */
export interface EmailWebhookBody extends WebhookEnvelope {
  /** The subscriber's email address. */
  to: string;
  /** The rendered subject (`''` when the step has none). */
  subject: string;
  /** The rendered body (HTML). */
  content: string;
  /** `credentials.from` of the integration. */
  from?: string;
  /** `credentials.senderName` of the integration. */
  senderName?: string;
  /** The call to action's rendered URL. */
  ctaUrl?: string;
  /** The trigger payload. */
  payload: Record<string, unknown>;
  /** The trigger's `overrides.providers['email-webhook']`, or `{}`. */
  overrides: Record<string, unknown>;
}

/**
 * Email through a webhook of the host: POSTs an {@link EmailWebhookBody} to `credentials.webhookUrl`
 * with an `idempotency-key` header (the job id) and, when `credentials.secretKey` is set, an
 * `x-signature` header (hex HMAC-SHA256 of the raw body). Any 2xx answer means sent; the answer's
 * JSON `id`, if any, becomes the message's provider id.
 * @publicApi
 */
@Injectable()
export class EmailWebhookProvider extends WebhookDeliveryProvider {
  readonly providerId = 'email-webhook';
  readonly channel = 'email';

  protected buildBody(message: DeliveryMessage, credentials: IntegrationCredentials): EmailWebhookBody {
    return {
      ...webhookEnvelope(message),
      to: requireRecipientField(message.to.email, 'email address'),
      subject: message.subject ?? '',
      content: message.content,
      from: credentialString(credentials, 'from'),
      senderName: credentialString(credentials, 'senderName'),
      ctaUrl: message.ctaUrl,
      payload: message.payload,
      overrides: message.overrides,
    };
  }
}
