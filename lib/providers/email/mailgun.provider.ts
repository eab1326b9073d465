import { Injectable } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { basicAuth, isPlainObject, pickString, requireCredential, type VendorFailure, vendorRequest, vendorUrl } from '../vendor-http';
import { credentialString, requireRecipientField } from '../webhook-request';
import { emailParts } from './email-content';
import { emailOverrides } from './email-api';

/** Mailgun's API for domains in the US region; EU domains set `credentials.baseUrl` to `https://api.eu.mailgun.net`. */
export const MAILGUN_API_BASE = 'https://api.mailgun.net';

/**
 * Email through Mailgun's Messages API.
 *
 * - Endpoint: `POST {base}/v3/{credentials.domain}/messages`; `base` is `credentials.baseUrl`
 *   (`https://api.eu.mailgun.net` for EU domains), else `https://api.mailgun.net`.
 * - Auth: HTTP Basic, user `credentials.user` (Mailgun's is always `api`, the default) and password
 *   `credentials.apiKey`.
 * - Body (`multipart/form-data`, as Mailgun documents it): `from` (`"Sender Name" <from>`), `to`,
 *   `subject`, `html`, `text` (derived from the HTML, left out when empty).
 * - Overrides (`overrides.providers.mailgun`): `replyTo` → `h:Reply-To`, `cc` / `bcc` → `cc` / `bcc`
 *   (comma-separated), `headers` → one `h:<Name>` field each, `attachments` → `attachment` file parts;
 *   any other key is added as a form field with Mailgun's own name (`o:tag`, `o:tracking`,
 *   `template`, `t:variables`, `v:my-var`, ...): arrays repeat the field, objects are sent as JSON.
 * - Idempotency: none. Mailgun's Messages API takes no idempotency key, so a redelivered job may send
 *   twice (at least once).
 * - Answer: `{ id: '<...@domain>', message: 'Queued. Thank you.' }`; `id` becomes the message's
 *   provider id. Errors are `{ message }` (or plain text, e.g. `Forbidden` for a bad key).
 * - Transient: 408, 429 (honouring `Retry-After`), 5xx, network errors and timeouts.
 * @publicApi
 */
@Injectable()
export class MailgunProvider extends DeliveryProvider {
  readonly providerId = 'mailgun';
  readonly channel = 'email';
  override readonly requiredCredentials = ['apiKey', 'domain', 'from'] as const;

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const apiKey = requireCredential(credentials, 'apiKey', this.providerId);
    const domain = requireCredential(credentials, 'domain', this.providerId);
    const parts = emailParts(message, credentials);
    const overrides = emailOverrides(message.overrides);

    const form = new FormData();
    form.append('from', parts.fromHeader);
    form.append('to', requireRecipientField(message.to.email, 'email address'));
    form.append('subject', parts.subject);
    form.append('html', parts.html);
    if (parts.text) form.append('text', parts.text);
    if (overrides.cc.length) form.append('cc', overrides.cc.join(', '));
    if (overrides.bcc.length) form.append('bcc', overrides.bcc.join(', '));
    if (overrides.replyTo) form.append('h:Reply-To', overrides.replyTo);
    for (const [name, value] of Object.entries(overrides.headers)) form.append(`h:${name}`, value);
    for (const [name, value] of Object.entries(overrides.vendorFields)) {
      for (const item of Array.isArray(value) ? value : [value]) form.append(name, formValue(item));
    }
    for (const attachment of overrides.attachments) {
      const file = new Blob([Buffer.from(attachment.file, 'base64')], { type: attachment.mime ?? 'application/octet-stream' });
      form.append('attachment', file, attachment.name);
    }
    // Serialized here (not by fetch) so vendorRequest sends bytes with their multipart boundary.
    const encoded = new Response(form);
    const contentType = encoded.headers.get('content-type') ?? 'multipart/form-data';
    const body = new Uint8Array(await encoded.arrayBuffer());

    const user = credentialString(credentials, 'user') ?? 'api';
    const response = await vendorRequest(
      'Mailgun',
      {
        url: vendorUrl(credentials, MAILGUN_API_BASE, `/v3/${encodeURIComponent(domain)}/messages`),
        headers: { authorization: basicAuth(user, apiKey), 'content-type': contentType, accept: 'application/json' },
        body,
        timeoutMs: message.timeoutMs,
      },
      describeMailgunFailure,
    );
    return { id: pickString(response.body, 'id'), raw: { status: response.status, body: response.body } };
  }
}

/** A form field's text: strings as they are, objects (`t:variables`) as JSON. */
function formValue(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/** `{ message }`, or a short plain-text answer (`Forbidden`). Mailgun gives no error codes. */
function describeMailgunFailure(body: unknown): VendorFailure | undefined {
  if (isPlainObject(body) && typeof body.message === 'string') return { message: body.message };
  if (typeof body === 'string' && body.trim() && body.length <= 200) return { message: body.trim() };
  return undefined;
}
