import { Injectable } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryError, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { isPlainObject, pickString, type VendorFailure, vendorRequest, vendorUrl } from '../vendor-http';
import { credentialString } from '../webhook-request';
import { type DeviceSendResult, sendToDeviceTokens } from './device-tokens';
import { deviceMessageUuid } from './push-helpers';

/**
 * Push through OneSignal's Create message API, one request per subscription id (the device
 * "token" of a OneSignal subscriber channel; formerly the player id).
 *
 * - **Endpoint**: `POST {base}/notifications?c=push`, base `https://api.onesignal.com` (OneSignal's
 *   current API; Novu's provider still calls the legacy `https://onesignal.com/api/v1/notifications`)
 *   or `credentials.baseUrl`.
 * - **Auth**: `Authorization: Key <credentials.apiKey>` (the App API key).
 * - **Body**: `{ app_id: credentials.applicationId, target_channel: 'push', include_subscription_ids:
 *   [token], headings: { en: title }, contents: { en: content }, data: payload, idempotency_key }`
 *   (`headings` only when the step has a title). Overrides (the trigger's `overrides.providers['one-signal']`)
 *   are OneSignal fields (`ios_sound`, `android_channel_id`, `url`, `big_picture`, `subtitle`, ...)
 *   merged over those; `app_id`, the targeting and the idempotency key always stay ours.
 * - **Idempotency**: `idempotency_key` (formerly `external_id`), a UUID derived from the job id and the
 *   token ({@link deviceMessageUuid}; OneSignal wants a v3/v4 UUID, and each token is its own request):
 *   a retry of the job is recognised and answered with the first send's result, for 30 days.
 * - **Vendor id**: the answer's `id`.
 * - **Errors**: OneSignal answers some refusals with a 200: `{ id, errors: { invalid_player_ids: [...] } }`
 *   fails the token with code `invalid_player_ids` (marked invalid), `{ id: '', errors: ['All included
 *   players are not subscribed'] }` with code `no_subscribed_players`. Other failures are
 *   `{ errors: [...] }` with a 4xx (permanent) or 429/5xx (transient) status.
 * @publicApi
 */
@Injectable()
export class OneSignalProvider extends DeliveryProvider {
  readonly providerId = 'one-signal';
  readonly channel = 'push';
  override readonly requiredCredentials = ['applicationId', 'apiKey'] as const;

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const appId = credentialString(credentials, 'applicationId');
    const apiKey = credentialString(credentials, 'apiKey');
    if (!appId || !apiKey) {
      throw new DeliveryError(`The OneSignal integration is missing credentials: ${[!appId && 'applicationId', !apiKey && 'apiKey'].filter(Boolean).join(', ')}`, undefined, {
        code: 'invalid_credentials',
      });
    }
    const url = vendorUrl(credentials, 'https://api.onesignal.com', '/notifications?c=push');

    const sendOne = async (token: string): Promise<DeviceSendResult> => {
      const response = await vendorRequest(
        'OneSignal',
        { url, headers: { authorization: `Key ${apiKey}` }, json: this.buildBody(message, appId, token), timeoutMs: message.timeoutMs },
        describeOneSignalFailure,
      );
      const raw = { status: response.status, body: response.body };
      const body = isPlainObject(response.body) ? response.body : {};
      const errors = body.errors;
      if (isPlainObject(errors)) {
        const invalid = Array.isArray(errors.invalid_player_ids) ? errors.invalid_player_ids : [];
        if (invalid.includes(token)) throw new DeliveryError('OneSignal refused the subscription id as invalid', raw, { code: 'invalid_player_ids' });
      }
      const id = pickString(body, 'id');
      if (!id) {
        const reason = Array.isArray(errors) && typeof errors[0] === 'string' ? errors[0] : 'no notification was created';
        throw new DeliveryError(`OneSignal did not send the notification: ${reason}`, raw, { code: 'no_subscribed_players' });
      }
      return { id, raw };
    };
    return sendToDeviceTokens('OneSignal', message, sendOne);
  }

  /** The Create message body for one subscription (see the class comment for the overrides). */
  protected buildBody(message: DeliveryMessage, appId: string, token: string): Record<string, unknown> {
    return {
      ...(message.title ? { headings: { en: message.title } } : {}),
      contents: { en: message.content },
      data: message.payload,
      ...message.overrides,
      app_id: appId,
      target_channel: 'push',
      include_subscription_ids: [token],
      idempotency_key: deviceMessageUuid(message.jobId, token),
    };
  }
}

/** `{ errors: ['text', ...] }` or `{ errors: { invalid_player_ids: [...] } }`. */
function describeOneSignalFailure(body: unknown): VendorFailure | undefined {
  if (!isPlainObject(body)) return undefined;
  const errors = body.errors;
  if (Array.isArray(errors)) {
    const texts = errors.map((error) => (typeof error === 'string' ? error : JSON.stringify(error)));
    return texts.length ? { message: texts.join('; ') } : undefined;
  }
  if (isPlainObject(errors)) {
    const [code] = Object.keys(errors);
    return code ? { code, message: code } : undefined;
  }
  return undefined;
}
