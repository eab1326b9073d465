import { Injectable } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryError, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { isPlainObject, mergeVendorFields, pickString, requireCredential, type VendorFailure, vendorRequest, vendorUrl } from '../vendor-http';
import { requireRecipientField } from '../webhook-request';
import { emailParts } from './email-content';
import { emailOverrides } from './email-api';

/** Resend's API. */
export const RESEND_API_BASE = 'https://api.resend.com';

/**
 * Email through Resend's Send Email API.
 *
 * - Endpoint: `POST {base}/emails`; `base` is `credentials.baseUrl`, else `https://api.resend.com`.
 * - Auth: `Authorization: Bearer <credentials.apiKey>`.
 * - Body (JSON): `from` (`"Sender Name" <from>`), `to: [address]`, `subject`, `html`, `text` (derived
 *   from the HTML, left out when empty).
 * - Overrides (`overrides.providers.resend`): `replyTo` → `reply_to`, `cc` / `bcc` → `cc` / `bcc`,
 *   `headers` → `headers`, `attachments` → `attachments: [{ filename, content, content_type? }]`; any
 *   other key is merged into the body with Resend's own names (`tags`, `scheduled_at`, ...).
 * - Idempotency: the job id as the `Idempotency-Key` header (Resend keeps keys 24 hours), so a retry or
 *   a redelivered job never sends twice.
 * - Answer: `{ id }`, the message's provider id. Errors are `{ statusCode, message, name }`; `name`
 *   (`validation_error`, `invalid_api_key`, ...) becomes the message's error id.
 * - Transient: 408, 429 (honouring `Retry-After`), 5xx, network errors and timeouts, and 409
 *   `concurrent_idempotent_requests` (the same job's earlier request is still in progress at Resend).
 * @publicApi
 */
@Injectable()
export class ResendProvider extends DeliveryProvider {
  readonly providerId = 'resend';
  readonly channel = 'email';
  override readonly requiredCredentials = ['apiKey', 'from'] as const;

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const apiKey = requireCredential(credentials, 'apiKey', this.providerId);
    const parts = emailParts(message, credentials);
    const overrides = emailOverrides(message.overrides);

    const body: Record<string, unknown> = {
      from: parts.fromHeader,
      to: [requireRecipientField(message.to.email, 'email address')],
      subject: parts.subject,
      html: parts.html,
    };
    if (parts.text) body.text = parts.text;
    if (overrides.replyTo) body.reply_to = overrides.replyTo;
    if (overrides.cc.length) body.cc = overrides.cc;
    if (overrides.bcc.length) body.bcc = overrides.bcc;
    if (Object.keys(overrides.headers).length) body.headers = overrides.headers;
    if (overrides.attachments.length) {
      body.attachments = overrides.attachments.map((attachment) => ({
        filename: attachment.name,
        content: attachment.file,
        ...(attachment.mime ? { content_type: attachment.mime } : {}),
      }));
    }

    try {
      const response = await vendorRequest(
        'Resend',
        {
          url: vendorUrl(credentials, RESEND_API_BASE, '/emails'),
          headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': message.jobId },
          json: mergeVendorFields(body, overrides.vendorFields),
          timeoutMs: message.timeoutMs,
        },
        describeResendFailure,
      );
      return { id: pickString(response.body, 'id'), raw: { status: response.status, body: response.body } };
    } catch (error) {
      // The first request of this job is still being processed: asking again later gets its answer.
      if (error instanceof DeliveryError && !error.transient && error.code === 'concurrent_idempotent_requests') {
        throw new DeliveryError(error.message, error.raw, { transient: true, code: error.code });
      }
      throw error;
    }
  }
}

/** `{ statusCode, message, name }` → the message, and `name` as the code. */
function describeResendFailure(body: unknown): VendorFailure | undefined {
  if (!isPlainObject(body)) return undefined;
  return {
    message: typeof body.message === 'string' ? body.message : undefined,
    code: typeof body.name === 'string' ? body.name : undefined,
  };
}
