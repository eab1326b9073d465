import { Injectable } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { isPlainObject, mergeVendorFields, pickString, requireCredential, type VendorFailure, vendorRequest, vendorUrl } from '../vendor-http';
import { requireRecipientField } from '../webhook-request';
import { emailParts } from './email-content';
import { emailOverrides } from './email-api';

/** Brevo's (formerly Sendinblue) API. */
export const BREVO_API_BASE = 'https://api.brevo.com';

/**
 * Email through Brevo's (formerly Sendinblue, hence the provider id) transactional email API.
 *
 * - Endpoint: `POST {base}/v3/smtp/email`; `base` is `credentials.baseUrl`, else `https://api.brevo.com`.
 * - Auth: `api-key: <credentials.apiKey>`, with `Accept: application/json`.
 * - Body (JSON): `sender: { email, name? }`, `to: [{ email }]`, `subject`, `htmlContent`,
 *   `textContent` (derived from the HTML, left out when empty), `headers: { 'Idempotency-Key': job id }`.
 * - Overrides (`overrides.providers.sendinblue`): `replyTo` → `replyTo: { email }`, `cc` / `bcc` →
 *   `cc` / `bcc: [{ email }]`, `headers` → added to `headers`, `attachments` → `attachment: [{ content,
 *   name }]` (Brevo infers the type from the name); any other key is merged into the body with Brevo's
 *   own names (`templateId`, `params`, `tags`, `scheduledAt`, ...).
 * - Idempotency: the job id as the `Idempotency-Key` entry of the body's `headers` (Brevo reads the
 *   key there, not from an HTTP header, and keeps it 15 minutes), so a queue retry does not send twice.
 * - Answer: 201 `{ messageId: '<...@smtp-relay.mailin.fr>' }`, the message's provider id. Errors are
 *   `{ code, message }`; `code` (`invalid_parameter`, `unauthorized`, ...) becomes the error id.
 * - Transient: 408, 429 (honouring `Retry-After`), 5xx, network errors and timeouts.
 * @publicApi
 */
@Injectable()
export class SendinblueProvider extends DeliveryProvider {
  readonly providerId = 'sendinblue';
  readonly channel = 'email';
  override readonly requiredCredentials = ['apiKey', 'from'] as const;

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const apiKey = requireCredential(credentials, 'apiKey', this.providerId);
    const parts = emailParts(message, credentials);
    const overrides = emailOverrides(message.overrides);

    const body: Record<string, unknown> = {
      sender: parts.fromName ? { email: parts.from, name: parts.fromName } : { email: parts.from },
      to: [{ email: requireRecipientField(message.to.email, 'email address') }],
      subject: parts.subject,
      htmlContent: parts.html,
    };
    if (parts.text) body.textContent = parts.text;
    if (overrides.replyTo) body.replyTo = { email: overrides.replyTo };
    if (overrides.cc.length) body.cc = overrides.cc.map((email) => ({ email }));
    if (overrides.bcc.length) body.bcc = overrides.bcc.map((email) => ({ email }));
    if (overrides.attachments.length) body.attachment = overrides.attachments.map((attachment) => ({ content: attachment.file, name: attachment.name }));
    body.headers = { ...overrides.headers, 'Idempotency-Key': message.jobId };

    const response = await vendorRequest(
      'Brevo',
      {
        url: vendorUrl(credentials, BREVO_API_BASE, '/v3/smtp/email'),
        headers: { 'api-key': apiKey, accept: 'application/json' },
        json: mergeVendorFields(body, overrides.vendorFields),
        timeoutMs: message.timeoutMs,
      },
      describeBrevoFailure,
    );
    return { id: pickString(response.body, 'messageId'), raw: { status: response.status, body: response.body } };
  }
}

/** `{ code, message }`. */
function describeBrevoFailure(body: unknown): VendorFailure | undefined {
  if (!isPlainObject(body)) return undefined;
  return {
    message: typeof body.message === 'string' ? body.message : undefined,
    code: typeof body.code === 'string' ? body.code : undefined,
  };
}
