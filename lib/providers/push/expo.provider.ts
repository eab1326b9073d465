import { Injectable } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryError, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { isPlainObject, type VendorFailure, vendorRequest, vendorUrl } from '../vendor-http';
import { credentialString } from '../webhook-request';
import { type DeviceSendResult, sendToDeviceTokens } from './device-tokens';
import {  } from './push-helpers';

/** Ticket errors worth another try later (Expo's own advice for `MessageRateExceeded`). */
const TRANSIENT_TICKET_ERRORS = new Set(['MessageRateExceeded']);

/**
 * Push through Expo's push service, one request per Expo push token.
 *
 * - **Endpoint**: `POST {base}/--/api/v2/push/send`, base `https://exp.host` or `credentials.baseUrl`,
 *   with `accept: application/json`.
 * - **Auth**: `Authorization: Bearer <credentials.apiKey>` (an Expo access token) when set; Expo only
 *   requires it when the project enables enhanced push security, so it is optional here.
 * - **Body**: a one-message array `[{ to: token, title, body: content, data: payload }]`. Overrides
 *   (the trigger's `overrides.providers.expo`) are Expo message fields (`sound`, `badge`, `channelId`,
 *   `priority`, `ttl`, `subtitle`, `categoryId`, ...) merged over those; `to` is always the token.
 * - **Answer**: `{ data: [ticket] }` (or `{ data: ticket }`): a ticket `{ status: 'ok', id }` means
 *   accepted, its `id` (the push receipt id) is the vendor id; `{ status: 'error', message, details:
 *   { error } }` fails the token with `details.error` as the code (`DeviceNotRegistered` marks it
 *   invalid; `MessageRateExceeded` is transient). Request-level errors come as `{ errors: [{ code,
 *   message }] }`, with a 4xx/5xx status or even a 200.
 * - **Idempotency**: Expo has no idempotency key.
 * - **Transient**: 429, 5xx, timeouts, network errors and `MessageRateExceeded` tickets.
 * @publicApi
 */
@Injectable()
export class ExpoProvider extends DeliveryProvider {
  readonly providerId = 'expo';
  readonly channel = 'push';

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const url = vendorUrl(credentials, 'https://exp.host', '/--/api/v2/push/send');
    const accessToken = credentialString(credentials, 'apiKey');
    const headers: Record<string, string> = { accept: 'application/json' };
    if (accessToken) headers.authorization = `Bearer ${accessToken}`;

    const sendOne = async (token: string): Promise<DeviceSendResult> => {
      const response = await vendorRequest('Expo', { url, headers, json: [this.buildMessage(message, token)], timeoutMs: message.timeoutMs }, describeExpoFailure);
      const raw = { status: response.status, body: response.body };
      const body = isPlainObject(response.body) ? response.body : {};
      const requestError = describeExpoFailure(body);
      if (requestError) throw new DeliveryError(`Expo refused the request: ${requestError.message}`, raw, { code: requestError.code });
      const ticket = Array.isArray(body.data) ? (body.data[0] as unknown) : body.data;
      if (!isPlainObject(ticket)) throw new DeliveryError('Expo answered without a push ticket', raw, { code: 'no_ticket' });
      if (ticket.status === 'ok' && typeof ticket.id === 'string') return { id: ticket.id, raw };
      const code = isPlainObject(ticket.details) && typeof ticket.details.error === 'string' ? ticket.details.error : 'error';
      const text = typeof ticket.message === 'string' ? ticket.message : code;
      throw new DeliveryError(`Expo refused the push: ${text}`, raw, { code, transient: TRANSIENT_TICKET_ERRORS.has(code) });
    };
    return sendToDeviceTokens('Expo', message, sendOne);
  }

  /** One Expo push message (see the class comment for the overrides). */
  protected buildMessage(message: DeliveryMessage, token: string): Record<string, unknown> {
    return {
      title: message.title ?? '',
      body: message.content,
      data: message.payload,
      ...message.overrides,
      to: token,
    };
  }
}

/** `{ errors: [{ code, message }] }`: the first error (Expo's SDK reports it the same way). */
function describeExpoFailure(body: unknown): VendorFailure | undefined {
  if (!isPlainObject(body) || !Array.isArray(body.errors) || body.errors.length === 0) return undefined;
  const [first] = body.errors as unknown[];
  if (!isPlainObject(first)) return { message: 'unknown error' };
  return {
    code: typeof first.code === 'string' ? first.code : undefined,
    message: typeof first.message === 'string' ? first.message : typeof first.code === 'string' ? first.code : 'unknown error',
  };
}
