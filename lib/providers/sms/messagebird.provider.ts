import { Injectable, Logger } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryError, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { pickString, type VendorFailure, vendorUrl } from '../vendor-http';
import { credentialString } from '../webhook-request';
import { isGsm7, mergeOverrides, msisdn, recipientPhone, sentResult, smsVendorRequest, textOf } from './sms-request';

/** MessageBird's REST API base; `credentials.baseUrl` replaces it. */
export const MESSAGEBIRD_API_BASE = 'https://rest.messagebird.com';

/**
 * SMS through MessageBird's (Bird's) SMS Messaging API.
 *
 * - **Endpoint:** `POST {baseUrl}/messages`.
 * - **Auth:** `Authorization: AccessKey <credentials.accessKey>`.
 * - **Request:** JSON `{ originator, recipients, body, reference }`: `originator` = `credentials.from`
 *   (a number or an alphanumeric sender id), `recipients` = `[the subscriber's phone as a digits-only
 *   MSISDN]`, `body` = the rendered text, `reference` = the job id (echoed in status reports), plus
 *   `datacoding: "unicode"` when the text has characters outside the GSM 03.38 alphabet.
 * - **Overrides:** merged into the JSON body as MessageBird parameters, names as MessageBird spells
 *   them (`reportUrl`, `validity`, `scheduledDatetime`, `typeDetails`, ...); `from` is taken as
 *   `originator`.
 * - **Idempotency:** none (the API has no idempotency key).
 * - **Message id:** the answer's `id`.
 * - **Failures:** MessageBird answers `{ errors: [{ code, description, parameter }] }`; the first
 *   error's `code` becomes the message's `errorId` (2 request not allowed, 9 missing params, 25 not
 *   enough balance, ...). HTTP 408, 429 and 5xx are transient, other 4xx permanent.
 * @publicApi
 */
@Injectable()
export class MessageBirdProvider extends DeliveryProvider {
  readonly providerId = 'messagebird';
  readonly channel = 'sms';
  override readonly requiredCredentials = ['accessKey', 'from'] as const;
  private readonly logger = new Logger(MessageBirdProvider.name);

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const accessKey = credentialString(credentials, 'accessKey');
    if (!accessKey) throw new DeliveryError('The messagebird integration needs credentials.accessKey', undefined, { code: 'missing_credentials' });

    const body = mergeOverrides(
      {
        originator: credentialString(credentials, 'from'),
        recipients: [msisdn(recipientPhone(message))],
        body: message.content,
        reference: message.jobId,
        ...(!isGsm7(message.content) && { datacoding: 'unicode' }),
      },
      message.overrides,
      'as-is',
      { from: 'originator' },
    );
    const response = await smsVendorRequest(
      'MessageBird',
      credentials,
      {
        url: vendorUrl(credentials, MESSAGEBIRD_API_BASE, '/messages'),
        headers: { authorization: `AccessKey ${accessKey}`, accept: 'application/json' },
        json: body,
        timeoutMs: message.timeoutMs,
      },
      describeMessageBirdFailure,
    );
    const id = pickString(response.body, 'id');
    this.logger.debug(`Job ${message.jobId}: MessageBird accepted message ${id ?? '(no id)'}`);
    return sentResult(response, id);
  }
}

/** MessageBird's error body: `{ errors: [{ code: 2, description: "Request not allowed (incorrect access_key)", parameter: "access_key" }] }`. */
export function describeMessageBirdFailure(body: unknown): VendorFailure | undefined {
  const errors = typeof body === 'object' && body !== null ? (body as { errors?: unknown }).errors : undefined;
  if (!Array.isArray(errors) || typeof errors[0] !== 'object' || errors[0] === null) return undefined;
  const { code, description } = errors[0] as { code?: unknown; description?: unknown };
  return { message: textOf(description), code: textOf(code) };
}
