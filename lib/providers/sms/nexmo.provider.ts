import { Injectable, Logger } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryError, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { pickString, type VendorFailure, vendorUrl } from '../vendor-http';
import { credentialString } from '../webhook-request';
import { formFields, isGsm7, mergeOverrides, msisdn, recipientPhone, sentResult, smsVendorRequest, textOf } from './sms-request';

/** Vonage's SMS API base; `credentials.baseUrl` replaces it. */
export const VONAGE_SMS_API_BASE = 'https://rest.nexmo.com';

/**
 * `messages[].status` values of Vonage's SMS API that may pass on a later try: 1 Throttled (sending
 * faster than the account limit), 5 Internal Error (a platform error), 10 Too Many Existing Binds
 * (documented resolution: "back-off and retry"). Every other non-zero status is permanent.
 */
export const VONAGE_TRANSIENT_STATUSES: ReadonlySet<string> = new Set(['1', '5', '10']);

/** One entry of the SMS API's `messages` array (one per SMS part). */
interface VonageMessagePart {
  status?: string;
  'message-id'?: string;
  'error-text'?: string;
}

/**
 * SMS through the Vonage (formerly Nexmo) SMS API.
 *
 * - **Endpoint:** `POST {baseUrl}/sms/json`.
 * - **Auth:** `api_key` (`credentials.apiKey`) and `api_secret` (`credentials.secretKey`) as request
 *   parameters, as the API reference defines them.
 * - **Request:** form-encoded `from` (`credentials.from`: a number or an alphanumeric sender id), `to`
 *   (the subscriber's phone as digits only: `+44 7700 900000` → `447700900000`), `text` (the rendered
 *   text), `type: unicode` when the text has characters outside the GSM 03.38 alphabet (else Vonage
 *   would mangle them), and `client-ref` = the job id (echoed in delivery receipts).
 * - **Overrides:** merged into the form as SMS API parameters; camelCase names become the API's
 *   kebab-case (`clientRef` → `client-ref`, `statusReportReq` → `status-report-req`); `ttl`,
 *   `callback`, `type` are taken as is.
 * - **Idempotency:** none (the SMS API has no idempotency key).
 * - **Message id:** `messages[0]['message-id']` (a long text is split into parts, one entry each; the
 *   first part's id is stored).
 * - **Failures:** the SMS API answers HTTP 200 even when it refuses a message: a non-zero
 *   `messages[].status` fails the send with `Vonage rejected the message with status <n>: <error-text>`
 *   and `errorId` = the status. Statuses 1, 5 and 10 ({@link VONAGE_TRANSIENT_STATUSES}) are transient,
 *   unless another part of the same text was already accepted (retrying would resend it). HTTP 408,
 *   429 and 5xx are transient, other 4xx permanent.
 * @publicApi
 */
@Injectable()
export class NexmoProvider extends DeliveryProvider {
  readonly providerId = 'nexmo';
  readonly channel = 'sms';
  override readonly requiredCredentials = ['apiKey', 'secretKey', 'from'] as const;
  private readonly logger = new Logger(NexmoProvider.name);

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const apiKey = credentialString(credentials, 'apiKey');
    const apiSecret = credentialString(credentials, 'secretKey');
    if (!apiKey || !apiSecret) throw new DeliveryError('The nexmo integration needs credentials.apiKey and credentials.secretKey', undefined, { code: 'missing_credentials' });

    const body = mergeOverrides(
      {
        from: credentialString(credentials, 'from'),
        to: msisdn(recipientPhone(message)),
        text: message.content,
        ...(!isGsm7(message.content) && { type: 'unicode' }),
        'client-ref': message.jobId,
      },
      message.overrides,
      'kebab',
    );
    const response = await smsVendorRequest(
      'Vonage',
      credentials,
      {
        url: vendorUrl(credentials, VONAGE_SMS_API_BASE, '/sms/json'),
        // The integration's key and secret win over any override of the same names.
        form: formFields({ ...body, api_key: apiKey, api_secret: apiSecret }),
        timeoutMs: message.timeoutMs,
      },
      describeVonageFailure,
    );

    const parts = messageParts(response.body);
    const failed = parts.find((part) => part.status !== '0');
    if (!parts.length || failed) {
      const status = failed?.status ?? 'missing';
      const accepted = parts.some((part) => part.status === '0');
      throw new DeliveryError(
        `Vonage rejected the message with status ${status}${failed?.['error-text'] ? `: ${failed['error-text']}` : ''}`,
        { status: response.status, body: response.body },
        { transient: VONAGE_TRANSIENT_STATUSES.has(status) && !accepted, code: status },
      );
    }
    const id = pickString(parts[0], 'message-id');
    this.logger.debug(`Job ${message.jobId}: Vonage accepted ${parts.length} part(s), first ${id ?? '(no id)'}`);
    return sentResult(response, id);
  }
}

/**
 * Vonage's non-2xx answers: the SMS API's own shape (`messages[0]['error-text']`) or the platform's
 * problem+json (`{ type, title, detail }`).
 */
export function describeVonageFailure(body: unknown): VendorFailure | undefined {
  const [part] = messageParts(body);
  if (part) return { message: textOf(part['error-text']), code: textOf(part.status) };
  if (typeof body !== 'object' || body === null) return undefined;
  const { title, detail, type } = body as { title?: unknown; detail?: unknown; type?: unknown };
  const text = [textOf(title), textOf(detail)].filter(Boolean).join(': ');
  return { message: text || undefined, code: textOf(type) };
}

function messageParts(body: unknown): VonageMessagePart[] {
  const messages = typeof body === 'object' && body !== null ? (body as { messages?: unknown }).messages : undefined;
  if (!Array.isArray(messages)) return [];
  return messages.filter((part): part is VonageMessagePart => typeof part === 'object' && part !== null).map((part) => ({ ...part, status: textOf(part.status) }));
}
