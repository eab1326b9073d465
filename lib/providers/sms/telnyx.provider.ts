import { Injectable, Logger } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryError, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { pickString, type VendorFailure, vendorUrl } from '../vendor-http';
import { credentialString } from '../webhook-request';
import { mergeOverrides, recipientPhone, sentResult, smsVendorRequest, textOf } from './sms-request';

/** Telnyx's API base; `credentials.baseUrl` replaces it. */
export const TELNYX_API_BASE = 'https://api.telnyx.com';

/**
 * SMS through Telnyx's Messaging API (v2).
 *
 * - **Endpoint:** `POST {baseUrl}/v2/messages`.
 * - **Auth:** `Authorization: Bearer <credentials.apiKey>`.
 * - **Request:** JSON `{ from, to, text, messaging_profile_id }`: `from` = `credentials.from` (+E.164
 *   number, short code or alphanumeric sender id), `to` = the subscriber's phone (+E.164 as stored),
 *   `text` = the rendered text, `messaging_profile_id` = `credentials.messageProfileId` (required by
 *   Telnyx for alphanumeric senders and number pools).
 * - **Overrides:** merged into the JSON body as Telnyx parameters; camelCase names become Telnyx's
 *   snake_case (`webhookUrl` → `webhook_url`, `useProfileWebhooks` → `use_profile_webhooks`).
 * - **Idempotency:** the job id as `Idempotency-Key`, Telnyx's API-wide idempotency header: where an
 *   endpoint honours it, a retry with the same key replays the first successful answer (kept 24 hours)
 *   instead of sending again, and the same key with another body answers 422. Endpoints that do not
 *   take it ignore it.
 * - **Message id:** `data.id`.
 * - **Failures:** Telnyx answers `{ errors: [{ code, title, detail }] }`; the first error's `code`
 *   becomes the message's `errorId`. HTTP 408, 429 and 5xx are transient, other 4xx (401, 422
 *   validation errors) permanent.
 * @publicApi
 */
@Injectable()
export class TelnyxProvider extends DeliveryProvider {
  readonly providerId = 'telnyx';
  readonly channel = 'sms';
  override readonly requiredCredentials = ['apiKey', 'messageProfileId', 'from'] as const;
  private readonly logger = new Logger(TelnyxProvider.name);

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const apiKey = credentialString(credentials, 'apiKey');
    if (!apiKey) throw new DeliveryError('The telnyx integration needs credentials.apiKey', undefined, { code: 'missing_credentials' });

    const body = mergeOverrides(
      {
        from: credentialString(credentials, 'from'),
        to: recipientPhone(message),
        text: message.content,
        messaging_profile_id: credentialString(credentials, 'messageProfileId'),
      },
      message.overrides,
      'snake',
    );
    const response = await smsVendorRequest(
      'Telnyx',
      credentials,
      {
        url: vendorUrl(credentials, TELNYX_API_BASE, '/v2/messages'),
        headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json', 'idempotency-key': message.jobId },
        json: body,
        timeoutMs: message.timeoutMs,
      },
      describeTelnyxFailure,
    );
    const id = pickString(response.body, 'data', 'id');
    this.logger.debug(`Job ${message.jobId}: Telnyx accepted message ${id ?? '(no id)'}`);
    return sentResult(response, id);
  }
}

/** Telnyx's error body: `{ errors: [{ code: "10009", title: "Authentication failed", detail: "..." }] }`. */
export function describeTelnyxFailure(body: unknown): VendorFailure | undefined {
  const errors = typeof body === 'object' && body !== null ? (body as { errors?: unknown }).errors : undefined;
  if (!Array.isArray(errors) || typeof errors[0] !== 'object' || errors[0] === null) return undefined;
  const { code, title, detail } = errors[0] as { code?: unknown; title?: unknown; detail?: unknown };
  return { message: textOf(detail) ?? textOf(title), code: textOf(code) };
}
