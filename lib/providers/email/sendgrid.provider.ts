import { Injectable } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { isPlainObject, mergeVendorFields, requireCredential, type VendorFailure, vendorRequest, vendorUrl } from '../vendor-http';
import { credentialString, requireRecipientField } from '../webhook-request';
import { emailParts } from './email-content';
import { emailOverrides } from './email-api';

/** SendGrid's API for global accounts. */
export const SENDGRID_API_BASE = 'https://api.sendgrid.com';
/** SendGrid's API for EU regional subusers (`credentials.region: 'eu'`). */
export const SENDGRID_EU_API_BASE = 'https://api.eu.sendgrid.com';

/**
 * Email through Twilio SendGrid's v3 Mail Send API.
 *
 * - Endpoint: `POST {base}/v3/mail/send`; `base` is `credentials.baseUrl`, else
 *   `https://api.eu.sendgrid.com` when `credentials.region` is `eu`, else `https://api.sendgrid.com`.
 * - Auth: `Authorization: Bearer <credentials.apiKey>`.
 * - Body (JSON): `personalizations: [{ to: [{ email }], cc?, bcc? }]`, `from: { email, name? }`
 *   (`credentials.from` / `senderName`, or the overrides'), `subject`, `content` = a `text/plain` part
 *   (derived from the HTML, left out when empty) then the `text/html` part (SendGrid requires that
 *   order), `ip_pool_name` from `credentials.ipPoolName` when set.
 * - Overrides (`overrides.providers.sendgrid`): `replyTo` → `reply_to: { email }`, `cc` / `bcc` → the
 *   personalization's `cc` / `bcc`, `attachments` → `attachments: [{ content, filename, type?,
 *   disposition: 'attachment' }]`, `headers` → `headers`; any other key is merged into the request body
 *   with SendGrid's own names (`template_id`, `categories`, `custom_args`, `tracking_settings`, ...).
 * - Idempotency: none. SendGrid's Mail Send takes no idempotency key, so a redelivered job may send
 *   twice (at least once).
 * - Answer: 202 with an empty body; the `X-Message-Id` header becomes the message's provider id.
 *   Errors are `{ errors: [{ message, field, help }] }`.
 * - Transient: 408, 429 (honouring `Retry-After`), 5xx, network errors and timeouts.
 * @publicApi
 */
@Injectable()
export class SendgridProvider extends DeliveryProvider {
  readonly providerId = 'sendgrid';
  readonly channel = 'email';
  override readonly requiredCredentials = ['apiKey', 'from'] as const;

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const apiKey = requireCredential(credentials, 'apiKey', this.providerId);
    const parts = emailParts(message, credentials);
    const overrides = emailOverrides(message.overrides);
    const to = requireRecipientField(message.to.email, 'email address');

    const personalization: Record<string, unknown> = { to: [{ email: to }] };
    if (overrides.cc.length) personalization.cc = overrides.cc.map((email) => ({ email }));
    if (overrides.bcc.length) personalization.bcc = overrides.bcc.map((email) => ({ email }));
    const content = [...(parts.text ? [{ type: 'text/plain', value: parts.text }] : []), { type: 'text/html', value: parts.html }];
    const ipPoolName = credentialString(credentials, 'ipPoolName');
    const body: Record<string, unknown> = {
      personalizations: [personalization],
      from: parts.fromName ? { email: parts.from, name: parts.fromName } : { email: parts.from },
      subject: parts.subject,
      content,
    };
    if (overrides.replyTo) body.reply_to = { email: overrides.replyTo };
    if (overrides.attachments.length) {
      body.attachments = overrides.attachments.map((attachment) => ({
        content: attachment.file,
        filename: attachment.name,
        ...(attachment.mime ? { type: attachment.mime } : {}),
        disposition: 'attachment',
      }));
    }
    if (Object.keys(overrides.headers).length) body.headers = overrides.headers;
    if (ipPoolName) body.ip_pool_name = ipPoolName;

    const base = credentials.region === 'eu' ? SENDGRID_EU_API_BASE : SENDGRID_API_BASE;
    const response = await vendorRequest(
      'SendGrid',
      {
        url: vendorUrl(credentials, base, '/v3/mail/send'),
        headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' },
        json: mergeVendorFields(body, overrides.vendorFields),
        timeoutMs: message.timeoutMs,
      },
      describeSendgridFailure,
    );
    const id = response.headers.get('x-message-id') ?? undefined;
    return { id, raw: { status: response.status, headers: { 'x-message-id': id ?? null }, ...(response.body === undefined ? {} : { body: response.body }) } };
  }
}

/** `{ errors: [{ message, field }] }` → the messages, joined. SendGrid gives no error codes. */
function describeSendgridFailure(body: unknown): VendorFailure | undefined {
  if (!isPlainObject(body) || !Array.isArray(body.errors)) return undefined;
  const messages = body.errors
    .filter(isPlainObject)
    .map((error) => (typeof error.message === 'string' ? (typeof error.field === 'string' && error.field ? `${error.field}: ${error.message}` : error.message) : undefined))
    .filter((text): text is string => Boolean(text));
  return messages.length ? { message: messages.join('; ') } : undefined;
}
