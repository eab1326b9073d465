import { Injectable } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryError, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { basicAuth, isPlainObject, isTransientStatus, mergeVendorFields, requireCredential, type VendorFailure, vendorRequest, vendorUrl } from '../vendor-http';
import { requireRecipientField } from '../webhook-request';
import { emailParts } from './email-content';
import { emailOverrides } from './email-api';

/** Mailjet's API. */
export const MAILJET_API_BASE = 'https://api.mailjet.com';

/**
 * Email through Mailjet's Send API v3.1.
 *
 * - Endpoint: `POST {base}/v3.1/send`; `base` is `credentials.baseUrl`, else `https://api.mailjet.com`.
 * - Auth: HTTP Basic, `credentials.apiKey` (API key) : `credentials.secretKey` (API secret key).
 * - Body (JSON): `{ Messages: [message] }`, one message with `From: { Email, Name? }`, `To: [{ Email }]`,
 *   `Subject`, `TextPart` (derived from the HTML, left out when empty), `HTMLPart` and `CustomID` = the
 *   job id (reported back in Mailjet's events, to correlate them with the job).
 * - Overrides (`overrides.providers.mailjet`): `replyTo` → `ReplyTo: { Email }`, `cc` / `bcc` →
 *   `Cc` / `Bcc: [{ Email }]`, `headers` → `Headers`, `attachments` → `Attachments: [{ ContentType,
 *   Filename, Base64Content }]`; any other key is merged into the message (not the envelope) with
 *   Mailjet's own names (`TemplateID`, `TemplateLanguage`, `Variables`, `CustomCampaign`, ...).
 * - Idempotency: none. Mailjet takes no idempotency key (`CustomID` only labels the message), so a
 *   redelivered job may send twice (at least once).
 * - Answer: `{ Messages: [{ Status: 'success', CustomID, To: [{ Email, MessageUUID, MessageID,
 *   MessageHref }] }] }`. The provider id is `To[0].MessageID` when the parsed number is exact; Mailjet's
 *   ids are 64-bit and usually exceed what a JavaScript number holds, in which case `To[0].MessageUUID`
 *   (Mailjet's events carry it as `Message_GUID`) is stored instead of a rounded id.
 * - Errors: a refused message answers 400 with `{ Messages: [{ Status: 'error', Errors: [{ ErrorCode,
 *   StatusCode, ErrorMessage, ErrorRelatedTo }] }] }` (`ErrorCode`, e.g. `mj-0013`, becomes the error
 *   id); auth failures answer 401 with `{ ErrorIdentifier, StatusCode, ErrorMessage }`. A 2xx whose
 *   message has `Status: 'error'` fails the same way (transient only when its `StatusCode` is).
 * - Transient: 408, 429 (honouring `Retry-After`), 5xx, network errors and timeouts.
 * @publicApi
 */
@Injectable()
export class MailjetProvider extends DeliveryProvider {
  readonly providerId = 'mailjet';
  readonly channel = 'email';
  override readonly requiredCredentials = ['apiKey', 'secretKey', 'from'] as const;

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const apiKey = requireCredential(credentials, 'apiKey', this.providerId);
    const secretKey = requireCredential(credentials, 'secretKey', this.providerId);
    const parts = emailParts(message, credentials);
    const overrides = emailOverrides(message.overrides);

    const mail: Record<string, unknown> = {
      From: parts.fromName ? { Email: parts.from, Name: parts.fromName } : { Email: parts.from },
      To: [{ Email: requireRecipientField(message.to.email, 'email address') }],
      Subject: parts.subject,
    };
    if (parts.text) mail.TextPart = parts.text;
    mail.HTMLPart = parts.html;
    mail.CustomID = message.jobId;
    if (overrides.replyTo) mail.ReplyTo = { Email: overrides.replyTo };
    if (overrides.cc.length) mail.Cc = overrides.cc.map((Email) => ({ Email }));
    if (overrides.bcc.length) mail.Bcc = overrides.bcc.map((Email) => ({ Email }));
    if (Object.keys(overrides.headers).length) mail.Headers = overrides.headers;
    if (overrides.attachments.length) {
      mail.Attachments = overrides.attachments.map((attachment) => ({
        ContentType: attachment.mime ?? 'application/octet-stream',
        Filename: attachment.name,
        Base64Content: attachment.file,
      }));
    }

    const response = await vendorRequest(
      'Mailjet',
      {
        url: vendorUrl(credentials, MAILJET_API_BASE, '/v3.1/send'),
        headers: { authorization: basicAuth(apiKey, secretKey) },
        json: { Messages: [mergeVendorFields(mail, overrides.vendorFields)] },
        timeoutMs: message.timeoutMs,
      },
      describeMailjetFailure,
    );
    const raw = { status: response.status, body: response.body };
    const result = firstMessage(response.body);
    if (result?.Status !== 'success') {
      const failure = describeMailjetFailure(response.body);
      const statusCode = firstError(response.body)?.StatusCode;
      throw new DeliveryError(`Mailjet refused the message${failure?.message ? `: ${failure.message}` : ''}`, raw, {
        transient: typeof statusCode === 'number' && isTransientStatus(statusCode),
        code: failure?.code,
      });
    }
    return { id: messageId(result), raw };
  }
}

/** `To[0].MessageID` when exact, else `To[0].MessageUUID` (see the class doc). */
function messageId(result: Record<string, unknown>): string | undefined {
  const recipient = Array.isArray(result.To) && isPlainObject(result.To[0]) ? result.To[0] : {};
  const id = recipient.MessageID;
  if (typeof id === 'string' && id !== '') return id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return String(id);
  return typeof recipient.MessageUUID === 'string' ? recipient.MessageUUID : undefined;
}

function firstMessage(body: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(body) || !Array.isArray(body.Messages)) return undefined;
  const [first] = body.Messages as unknown[];
  return isPlainObject(first) ? first : undefined;
}

function firstError(body: unknown): Record<string, unknown> | undefined {
  const errors = firstMessage(body)?.Errors;
  const [first] = Array.isArray(errors) ? (errors as unknown[]) : [];
  return isPlainObject(first) ? first : undefined;
}

/**
 * The message's first error (`ErrorMessage`, with `ErrorRelatedTo`, and `ErrorCode`), or the answer's
 * own `ErrorMessage` / `ErrorCode` for request-level failures (authentication, malformed JSON).
 */
function describeMailjetFailure(body: unknown): VendorFailure | undefined {
  const error = firstError(body) ?? (isPlainObject(body) ? body : undefined);
  if (!error) return undefined;
  const related = Array.isArray(error.ErrorRelatedTo) ? error.ErrorRelatedTo.filter((item) => typeof item === 'string').join(', ') : '';
  const text = typeof error.ErrorMessage === 'string' ? error.ErrorMessage : undefined;
  return {
    message: text && related ? `${text} (${related})` : text,
    code: typeof error.ErrorCode === 'string' && error.ErrorCode ? error.ErrorCode : undefined,
  };
}
