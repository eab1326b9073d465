import { Injectable, Logger } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryError, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { basicAuth, pickString, type VendorFailure, vendorUrl } from '../vendor-http';
import { credentialString } from '../webhook-request';
import { mergeOverrides, msisdn, recipientPhone, sentResult, smsVendorRequest, textOf } from './sms-request';

/** Plivo's API base; `credentials.baseUrl` replaces it. */
export const PLIVO_API_BASE = 'https://api.plivo.com';

/**
 * SMS through Plivo's Message API.
 *
 * - **Endpoint:** `POST {baseUrl}/v1/Account/{authId}/Message/` (`authId` = `credentials.accountSid`).
 * - **Auth:** HTTP Basic `accountSid:token` (Plivo's Auth ID and Auth Token).
 * - **Request:** JSON `{ src, dst, text }`: `src` = `credentials.from` (a Plivo number, short code or
 *   alphanumeric sender id), `dst` = the subscriber's phone as digits only (Plivo strips `+` itself;
 *   stripping everything else also keeps a stray `<`, Plivo's multi-recipient delimiter, from
 *   addressing several numbers), `text` = the rendered text.
 * - **Overrides:** merged into the JSON body as Plivo parameters; camelCase names become Plivo's
 *   snake_case (`powerpackUuid` → `powerpack_uuid`, `mediaUrls` → `media_urls`); `from` is taken as
 *   `src`; `{ src: null }` drops `src` (Plivo wants either `src` or `powerpack_uuid`).
 * - **Idempotency:** none (Plivo's Message API has no idempotency key).
 * - **Message id:** `message_uuid[0]` of the `202` answer
 *   (`{ api_id, message: "message(s) queued", message_uuid: [...] }`).
 * - **Failures:** Plivo answers `{ api_id, error }`; HTTP 408, 429 and 5xx are transient, other 4xx
 *   (400 invalid parameter, 401 authentication failed) permanent.
 * @publicApi
 */
@Injectable()
export class PlivoProvider extends DeliveryProvider {
  readonly providerId = 'plivo';
  readonly channel = 'sms';
  override readonly requiredCredentials = ['accountSid', 'token', 'from'] as const;
  private readonly logger = new Logger(PlivoProvider.name);

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const authId = credentialString(credentials, 'accountSid');
    const authToken = credentialString(credentials, 'token');
    if (!authId || !authToken) throw new DeliveryError('The plivo integration needs credentials.accountSid and credentials.token', undefined, { code: 'missing_credentials' });

    const body = mergeOverrides(
      { src: credentialString(credentials, 'from'), dst: msisdn(recipientPhone(message)), text: message.content },
      message.overrides,
      'snake',
      { from: 'src' },
    );
    const response = await smsVendorRequest(
      'Plivo',
      credentials,
      {
        url: vendorUrl(credentials, PLIVO_API_BASE, `/v1/Account/${encodeURIComponent(authId)}/Message/`),
        headers: { authorization: basicAuth(authId, authToken) },
        json: body,
        timeoutMs: message.timeoutMs,
      },
      describePlivoFailure,
    );
    const id = pickString(response.body, 'message_uuid', 0);
    this.logger.debug(`Job ${message.jobId}: Plivo queued message ${id ?? '(no uuid)'}`);
    return sentResult(response, id);
  }
}

/** Plivo's error body: `{ api_id: "...", error: "..." }` (`error` may also be an object of field errors). */
export function describePlivoFailure(body: unknown): VendorFailure | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { error } = body as { error?: unknown };
  return { message: textOf(error) ?? (error !== undefined && error !== null ? JSON.stringify(error) : undefined) };
}
