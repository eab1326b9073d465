import { DeliveryError } from '../delivery-provider';
import { isPlainObject } from '../vendor-http';

/**
 * The overrides every email provider understands (`replyTo`, `cc`, `bcc`, `attachments`, `headers`),
 * read once from a trigger's `overrides.providers[providerId]`; the rest go to the vendor as they are.
 */

/**
 * An attachment given in a trigger's overrides for an email provider.
 * @publicApi
 */
export interface EmailAttachmentOverride {
  /** The file name recipients see (`invoice.pdf`). */
  name: string;
  /** The file's content, Base64-encoded. */
  file: string;
  /** The MIME type (`application/pdf`); vendors that need one get `application/octet-stream` without it. */
  mime?: string;
}

/**
 * What the HTTP email providers read from a trigger's `overrides.providers[providerId]`. The keys below
 * are mapped onto each vendor's own fields; every other key is vendor-specific and merged into the
 * vendor's request body as is (see {@link mergeVendorFields}). `from` / `senderName` are read by
 * `emailParts`.
 * @publicApi
 */
export interface EmailOverrides {
  /** `replyTo`: one address. */
  replyTo?: string;
  /** `cc`: an address or a list of addresses (`[]` when not given). */
  cc: string[];
  /** `bcc`: an address or a list of addresses (`[]` when not given). */
  bcc: string[];
  /** `attachments`: `[{ name, file (Base64), mime? }]` (`[]` when not given). */
  attachments: EmailAttachmentOverride[];
  /** `headers`: extra email headers (`{ 'X-Campaign': 'spring' }`), `{}` when not given. */
  headers: Record<string, string>;
  /** Every other key of the overrides: the vendor's own request fields (`template_id`, `MessageStream`, `o:tag`, ...). */
  vendorFields: Record<string, unknown>;
}

/** Override keys the email providers interpret themselves rather than pass to the vendor. */
const MAPPED_KEYS = new Set(['from', 'senderName', 'replyTo', 'cc', 'bcc', 'attachments', 'headers']);

/**
 * Reads the common email overrides of a trigger.
 * @throws DeliveryError (permanent, code `invalid_overrides`) when a mapped key has the wrong shape:
 *   resending would not fix it.
 */
export function emailOverrides(overrides: Record<string, unknown>): EmailOverrides {
  const vendorFields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(overrides)) if (!MAPPED_KEYS.has(key) && value !== undefined) vendorFields[key] = value;
  return {
    replyTo: optionalAddress(overrides.replyTo, 'replyTo'),
    cc: addressList(overrides.cc, 'cc'),
    bcc: addressList(overrides.bcc, 'bcc'),
    attachments: attachmentList(overrides.attachments),
    headers: headerMap(overrides.headers),
    vendorFields,
  };
}



function invalid(text: string): DeliveryError {
  return new DeliveryError(`Invalid email overrides: ${text}`, undefined, { code: 'invalid_overrides' });
}

function optionalAddress(value: unknown, key: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw invalid(`${key} must be an email address`);
  return value;
}

function addressList(value: unknown, key: string): string[] {
  if (value === undefined || value === null) return [];
  const list: unknown[] = Array.isArray(value) ? value : [value];
  if (!list.every((item) => typeof item === 'string' && item.trim() !== '')) throw invalid(`${key} must be an email address or a list of them`);
  return list as string[];
}

function attachmentList(value: unknown): EmailAttachmentOverride[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid('attachments must be a list of { name, file, mime? }');
  return value.map((item: unknown, index) => {
    if (!isPlainObject(item) || typeof item.name !== 'string' || item.name === '' || typeof item.file !== 'string') {
      throw invalid(`attachments[${index}] needs a name and a Base64 file`);
    }
    if (item.mime !== undefined && typeof item.mime !== 'string') throw invalid(`attachments[${index}].mime must be a string`);
    return { name: item.name, file: item.file, ...(typeof item.mime === 'string' && item.mime ? { mime: item.mime } : {}) };
  });
}

function headerMap(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value) || !Object.values(value).every((item) => typeof item === 'string')) {
    throw invalid('headers must map header names to string values');
  }
  return value as Record<string, string>;
}

