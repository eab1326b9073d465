import { Injectable, Logger } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryError, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { basicAuth, pickString, type VendorFailure, vendorUrl } from '../vendor-http';
import { credentialString } from '../webhook-request';
import { formFields, mergeOverrides, recipientPhone, sentResult, smsVendorRequest, textOf } from './sms-request';

/** Twilio's REST API base; `credentials.baseUrl` replaces it (tests, Twilio edge locations such as `https://api.dublin.ie1.twilio.com`). */
export const TWILIO_API_BASE = 'https://api.twilio.com';

/**
 * SMS through Twilio's Programmable Messaging API.
 *
 * - **Endpoint:** `POST {baseUrl}/2010-04-01/Accounts/{accountSid}/Messages.json`.
 * - **Auth:** HTTP Basic `accountSid:token` (the account's Auth Token).
 * - **Request:** form-encoded `To` (the subscriber's phone, E.164 as stored), `From`
 *   (`credentials.from`: a Twilio number, short code or alphanumeric sender id) and `Body` (the
 *   rendered text).
 * - **Overrides:** merged into the form as Twilio parameters; camelCase names are capitalised, so
 *   `{ statusCallback, messagingServiceSid, mediaUrl: [...] }` become `StatusCallback`,
 *   `MessagingServiceSid` and repeated `MediaUrl` fields; `{ from: null }` drops `From` (Twilio wants
 *   either `From` or `MessagingServiceSid`); objects are sent as JSON text (`ContentVariables`).
 * - **Idempotency:** none. Twilio's Messages API takes no idempotency key (`I-Twilio-Idempotency-Token`
 *   is a header Twilio sends on its own webhooks, not one it honours on API requests), so a retry after
 *   a lost answer may send twice.
 * - **Message id:** the answer's `sid` (`SM…`).
 * - **Failures:** Twilio answers `{ code, message, more_info, status }`; `code` becomes the message's
 *   `errorId`. 429 (Twilio error 20429, "Too many requests"), 408 and 5xx are transient; other 4xx
 *   (21211 invalid `To`, 20003 bad credentials, ...) are permanent.
 * @publicApi
 */
@Injectable()
export class TwilioProvider extends DeliveryProvider {
  readonly providerId = 'twilio';
  readonly channel = 'sms';
  override readonly requiredCredentials = ['accountSid', 'token', 'from'] as const;
  private readonly logger = new Logger(TwilioProvider.name);

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const accountSid = credentialString(credentials, 'accountSid');
    const token = credentialString(credentials, 'token');
    if (!accountSid || !token) throw new DeliveryError('The twilio integration needs credentials.accountSid and credentials.token', undefined, { code: 'missing_credentials' });

    const body = mergeOverrides(
      { To: recipientPhone(message), From: credentialString(credentials, 'from'), Body: message.content },
      message.overrides,
      'pascal',
    );
    const response = await smsVendorRequest(
      'Twilio',
      credentials,
      {
        url: vendorUrl(credentials, TWILIO_API_BASE, `/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`),
        headers: { authorization: basicAuth(accountSid, token), accept: 'application/json' },
        form: formFields(body),
        timeoutMs: message.timeoutMs,
      },
      describeTwilioFailure,
    );
    const id = pickString(response.body, 'sid');
    this.logger.debug(`Job ${message.jobId}: Twilio accepted message ${id ?? '(no sid)'}`);
    return sentResult(response, id);
  }
}

/** Twilio's error body: `{ code: 21211, message: "...", more_info: "https://www.twilio.com/docs/errors/21211", status: 400 }`. */
export function describeTwilioFailure(body: unknown): VendorFailure | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { code, message } = body as { code?: unknown; message?: unknown };
  return { message: textOf(message), code: textOf(code) };
}
