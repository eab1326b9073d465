import { Injectable } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { isPlainObject, mergeVendorFields, pickString, requireCredential, type VendorFailure, vendorRequest, vendorUrl } from '../vendor-http';
import { requireRecipientField } from '../webhook-request';
import { emailParts } from './email-content';
import { emailOverrides } from './email-api';

/** Postmark's API. */
export const POSTMARK_API_BASE = 'https://api.postmarkapp.com';

/**
 * Email through Postmark's Email API.
 *
 * - Endpoint: `POST {base}/email`; `base` is `credentials.baseUrl`, else `https://api.postmarkapp.com`.
 * - Auth: `X-Postmark-Server-Token: <credentials.apiKey>` (a server token), with `Accept: application/json`.
 * - Body (JSON): `From` (`"Sender Name" <from>`), `To`, `Subject`, `HtmlBody`, `TextBody` (derived from
 *   the HTML, left out when empty). Postmark uses the server's default message stream (`outbound`).
 * - Overrides (`overrides.providers.postmark`): `replyTo` → `ReplyTo`, `cc` / `bcc` → `Cc` / `Bcc`
 *   (comma-separated), `headers` → `Headers: [{ Name, Value }]`, `attachments` → `Attachments:
 *   [{ Name, Content, ContentType }]`; any other key is merged into the body with Postmark's own names
 *   (`MessageStream`, `Tag`, `Metadata`, `TrackOpens`, `TrackLinks`, ...).
 * - Idempotency: none. Postmark's Email API takes no idempotency key, so a redelivered job may send twice
 *   (at least once).
 * - Answer: `{ To, SubmittedAt, MessageID, ErrorCode: 0, Message: 'OK' }`; `MessageID` becomes the
 *   message's provider id. Errors are `{ ErrorCode, Message }`: Postmark answers 422 for a message it
 *   refuses (inactive recipient, unconfirmed sender, ...) and 401 for a bad token, both permanent;
 *   `ErrorCode` becomes the message's error id.
 * - Transient: 408, 429 (honouring `Retry-After`), 5xx, network errors and timeouts.
 * @publicApi
 */
@Injectable()
export class PostmarkProvider extends DeliveryProvider {
  readonly providerId = 'postmark';
  readonly channel = 'email';
  override readonly requiredCredentials = ['apiKey', 'from'] as const;

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const token = requireCredential(credentials, 'apiKey', this.providerId);
    const parts = emailParts(message, credentials);
    const overrides = emailOverrides(message.overrides);

    const body: Record<string, unknown> = {
      From: parts.fromHeader,
      To: requireRecipientField(message.to.email, 'email address'),
      Subject: parts.subject,
      HtmlBody: parts.html,
    };
    if (parts.text) body.TextBody = parts.text;
    if (overrides.replyTo) body.ReplyTo = overrides.replyTo;
    if (overrides.cc.length) body.Cc = overrides.cc.join(', ');
    if (overrides.bcc.length) body.Bcc = overrides.bcc.join(', ');
    const headers = Object.entries(overrides.headers);
    if (headers.length) body.Headers = headers.map(([Name, Value]) => ({ Name, Value }));
    if (overrides.attachments.length) {
      body.Attachments = overrides.attachments.map((attachment) => ({
        Name: attachment.name,
        Content: attachment.file,
        ContentType: attachment.mime ?? 'application/octet-stream',
      }));
    }

    const response = await vendorRequest(
      'Postmark',
      {
        url: vendorUrl(credentials, POSTMARK_API_BASE, '/email'),
        headers: { 'x-postmark-server-token': token, accept: 'application/json' },
        json: mergeVendorFields(body, overrides.vendorFields),
        timeoutMs: message.timeoutMs,
      },
      describePostmarkFailure,
    );
    return { id: pickString(response.body, 'MessageID'), raw: { status: response.status, body: response.body } };
  }
}

/** `{ ErrorCode, Message }` → the message and the code (`406` for an inactive recipient, ...). */
function describePostmarkFailure(body: unknown): VendorFailure | undefined {
  if (!isPlainObject(body)) return undefined;
  return {
    message: typeof body.Message === 'string' ? body.Message : undefined,
    code: typeof body.ErrorCode === 'number' || typeof body.ErrorCode === 'string' ? String(body.ErrorCode) : undefined,
  };
}
