import { compile } from 'html-to-text';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { type DeliveryMessage, DeliveryError } from '../delivery-provider';
import { credentialString } from '../webhook-request';

/** What every email vendor needs of a message, resolved once. */
export interface EmailParts {
  /** The sender address (`credentials.from`, or `overrides.from`). */
  from: string;
  /** The sender's display name (`credentials.senderName`, or `overrides.senderName`), when set. */
  fromName?: string;
  /** `"Sender Name" <from>` (RFC 5322 quoted display name), or the bare address. */
  fromHeader: string;
  /** The subscriber's address. */
  to: string;
  subject: string;
  /** The rendered content: email steps write HTML. */
  html: string;
  /** A plain-text part derived from the HTML (links kept as `text [url]`), for clients that show no HTML. */
  text: string;
}

/**
 * The common fields of an email send. `overrides.from` / `overrides.senderName` (the trigger's
 * `overrides.providers[providerId]`) win over the integration's, as in the reference.
 * @throws DeliveryError when neither the overrides nor the credentials give a sender.
 */
export function emailParts(message: DeliveryMessage, credentials: IntegrationCredentials): EmailParts {
  const overrides = message.overrides;
  const from = stringOf(overrides.from) ?? credentialString(credentials, 'from');
  if (!from) throw new DeliveryError('The integration has no credentials.from (sender address)', undefined, { code: 'missing_sender' });
  const fromName = stringOf(overrides.senderName) ?? credentialString(credentials, 'senderName');
  return {
    from,
    fromName,
    fromHeader: fromName ? `"${fromName.replace(/["\\]/g, '\\$&')}" <${from}>` : from,
    to: message.to.email ?? '',
    subject: message.subject ?? '',
    html: message.content,
    text: htmlToText(message.content),
  };
}

/** html-to-text's converter, built once: `convert` would rebuild its selectors on every call. */
const toText = compile({ wordwrap: false });

/** The plain-text version of an HTML body (html-to-text, no hard wrapping). */
export function htmlToText(html: string): string {
  return toText(html);
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}
