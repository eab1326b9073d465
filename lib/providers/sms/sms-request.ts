import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryError, type DeliveryResult } from '../delivery-provider';
import { collectSecrets, redactSecrets } from '../redact';
import { type VendorFailure, type VendorRequest, vendorRequest, type VendorResponse } from '../vendor-http';
import { requireRecipientField } from '../webhook-request';

/**
 * Shared plumbing of the HTTP SMS vendors (Twilio, Vonage, Plivo, Telnyx, MessageBird): the recipient
 * number, how a trigger's `overrides.providers[providerId]` merge into a vendor body, and a vendor
 * call whose stored answers never carry a credential.
 */

/** How a vendor names its request fields, so overrides written in camelCase (as Novu's SDK-based providers take them) land on the right field. */
export type FieldStyle =
  /** Field names are used as given (MessageBird: `originator`, `reportUrl`). */
  | 'as-is'
  /** `statusCallback` → `StatusCallback` (Twilio's form parameters). */
  | 'pascal'
  /** `webhookUrl` → `webhook_url` (Telnyx, Plivo). */
  | 'snake'
  /** `clientRef` → `client-ref` (Vonage's SMS API). */
  | 'kebab';

/** What a vendor body field may hold after the overrides were merged in. */
export type VendorBody = Record<string, unknown>;

/** The subscriber's phone number, trimmed, or a DeliveryError naming what is missing. */
export function recipientPhone(message: DeliveryMessage): string {
  return requireRecipientField(message.to.phone, 'phone number').trim();
}

/**
 * A phone number as the digits-only MSISDN the vendors without a `+` (Vonage, MessageBird, Plivo)
 * document: `+44 7700-900000` → `447700900000`. Also keeps a stray `<` (Plivo's multi-recipient
 * delimiter) from turning one recipient into several.
 */
export function msisdn(phone: string): string {
  return phone.replace(/\D/g, '');
}

/**
 * `body` with the trigger's overrides for the provider merged over it (shallow: an override replaces
 * the whole field). Keys are renamed to the vendor's style (`aliases` first, e.g. `from` → `src`);
 * a `null` override removes the field (Twilio's `From` when sending through a `MessagingServiceSid`);
 * `undefined` ones are ignored.
 */
export function mergeOverrides(body: VendorBody, overrides: Record<string, unknown>, style: FieldStyle, aliases: Record<string, string> = {}): VendorBody {
  const merged: VendorBody = { ...body };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    const field = aliases[key] ?? renameField(key, style);
    if (value === null) delete merged[field];
    else merged[field] = value;
  }
  return merged;
}

/** A field name in the vendor's style. Names already in that style are left alone. */
export function renameField(key: string, style: FieldStyle): string {
  switch (style) {
    case 'as-is':
      return key;
    case 'pascal':
      return key.charAt(0).toUpperCase() + key.slice(1);
    case 'snake':
      return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
    case 'kebab':
      return key.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
  }
}

/**
 * A merged body as `application/x-www-form-urlencoded` fields: arrays repeat the key (Twilio's
 * `MediaUrl`), objects are sent as JSON text (Twilio's `ContentVariables`).
 */
export function formFields(body: VendorBody): Record<string, string | ReadonlyArray<string>> {
  const fields: Record<string, string | ReadonlyArray<string>> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    fields[key] = Array.isArray(value) ? value.map(formValue) : formValue(value);
  }
  return fields;
}

function formValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

/**
 * GSM 03.38: the default alphabet and its extension table. A text with any other character has to go
 * as UCS-2 ("unicode"), which vendors that do not detect it themselves (Vonage, MessageBird) must be told.
 */
const GSM_7BIT = /^[@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\fÆæßÉ !"#¤%&'()*+,\-./0-9:;<=>?¡A-ZÄÖÑÜ§¿a-zäöñüà^{}\\[~\]|€]*$/;

/** Whether `text` fits the GSM 7-bit alphabet (else it must be sent as unicode). */
export function isGsm7(text: string): boolean {
  return GSM_7BIT.test(text);
}

/**
 * {@link vendorRequest} for an SMS vendor, with every credential value of the integration replaced by
 * `[redacted]` in what it returns or throws: SMS vendors echo account ids in their answers (Twilio's
 * `account_sid` and `uri`), and both end up in the execution log.
 */
export async function smsVendorRequest(
  vendor: string,
  credentials: IntegrationCredentials,
  request: VendorRequest,
  describeFailure?: (body: unknown) => VendorFailure | undefined,
): Promise<VendorResponse> {
  try {
    const response = await vendorRequest(vendor, request, describeFailure);
    return { ...response, body: redactSecrets(response.body, collectSecrets(credentials)) };
  } catch (error) {
    if (!(error instanceof DeliveryError)) throw error;
    const secrets = collectSecrets(credentials);
    throw new DeliveryError(redactSecrets(error.message, secrets), redactSecrets(error.raw, secrets), {
      transient: error.transient,
      retryAfterMs: error.retryAfterMs,
      code: error.code,
    });
  }
}

/** The send's result: the vendor's id and its answer (`{ status, body }`) for the `Message sent` detail. */
export function sentResult(response: VendorResponse, id: string | undefined): DeliveryResult {
  return { id, raw: { status: response.status, body: response.body } };
}

/** A string or number field of an error body, as text. */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number') return String(value);
  return undefined;
}
