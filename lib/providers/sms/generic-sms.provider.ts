import { Injectable } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import type { DeliveryMessage } from '../delivery-provider';
import { credentialString, requireRecipientField, WebhookDeliveryProvider, type WebhookEnvelope, webhookEnvelope } from '../webhook-request';

/**
 * What the `generic-sms` provider POSTs (JSON). Absent optional fields are omitted.
 * @publicApi
 */
export interface SmsWebhookBody extends WebhookEnvelope {
  /** The subscriber's phone number, as stored on the subscriber. */
  to: string;
  /** The rendered text. */
  content: string;
  /** `credentials.from` of the integration (a sender number or id). */
  from?: string;
  /** The trigger payload. */
  payload: Record<string, unknown>;
  /** The trigger's `overrides.providers['generic-sms']`, or `{}`. */
  overrides: Record<string, unknown>;
}

/**
 * SMS through a gateway of the host: POSTs an {@link SmsWebhookBody} to `credentials.webhookUrl`
 * with an `idempotency-key` header (the job id) and, when `credentials.secretKey` is set, an
 * `x-signature` header (hex HMAC-SHA256 of the raw body). Any 2xx answer means sent; the answer's
 * JSON `id`, if any, becomes the message's provider id.
 * @publicApi
 */
@Injectable()
export class GenericSmsProvider extends WebhookDeliveryProvider {
  readonly providerId = 'generic-sms';
  readonly channel = 'sms';

  protected buildBody(message: DeliveryMessage, credentials: IntegrationCredentials): SmsWebhookBody {
    return {
      ...webhookEnvelope(message),
      to: requireRecipientField(message.to.phone, 'phone number'),
      content: message.content,
      from: credentialString(credentials, 'from'),
      payload: message.payload,
      overrides: message.overrides,
    };
  }
}
