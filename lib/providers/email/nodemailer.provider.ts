import type { ConnectionOptions } from 'node:tls';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { createTransport, type SendMailOptions, type SMTPPoolOptions, type SMTPPoolSentMessageInfo, type Transporter } from 'nodemailer';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { ClientCache } from '../client-cache';
import { type DeliveryMessage, DeliveryError, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { credentialString, requireRecipientField } from '../webhook-request';
import { emailOverrides } from './email-api';
import { isPlainObject, mergeVendorFields } from '../vendor-http';
import { emailParts } from './email-content';

/**
 * SMTP connections one transport (one set of credentials) keeps open at most: nodemailer's default,
 * and what most servers tolerate from one client before they throttle it.
 */
export const SMTP_POOL_MAX_CONNECTIONS = 5;
/** A pooled SMTP connection idle this long is closed (capped below the socket timeout, see {@link NodemailerProvider}). */
export const SMTP_CONNECTION_IDLE_MS = 30_000;
/** A transport (the pool of one set of credentials) unused this long is closed and dropped. */
export const SMTP_TRANSPORT_IDLE_MS = 60_000;
/** At most this many transports (distinct SMTP credentials) are kept. */
export const SMTP_TRANSPORT_CACHE_SIZE = 100;

/** What the `nodemailer` provider records for a sent message. @publicApi */
export interface SmtpSendRaw {
  /** The Message-ID header sent: `<jobId@sender-domain>`. */
  messageId: string;
  /** The server's final reply (`250 OK: queued as ...`). */
  response?: string;
  accepted?: string[];
  rejected?: string[];
}

/** What an SMTP failure leaves in `DeliveryError.raw` (never the password). @publicApi */
export interface SmtpErrorRaw {
  /** Nodemailer's error code (`EENVELOPE`, `EAUTH`, `ECONNECTION`, `ETIMEDOUT`, `EABORT`, ...). */
  code?: string;
  /** The SMTP command the server answered (`RCPT TO`, `DATA`, `AUTH PLAIN`, `CONN`). */
  command?: string;
  /** The SMTP reply code (`550`, `451`, `535`). */
  responseCode?: number;
  /** The server's reply text. */
  response?: string;
  message?: string;
}

/**
 * Email over SMTP with nodemailer, configured like Novu's `nodemailer` (custom SMTP) integration.
 *
 * - Connection: `credentials.host` / `port`; `secure` (TLS from the start, port 465), `requireTls`
 *   (fail unless the server offers STARTTLS), `ignoreTls` (never STARTTLS), `tlsOptions` (Node TLS options,
 *   an object or its JSON text, e.g. `{ "rejectUnauthorized": false }`; applied to STARTTLS as well,
 *   where Novu only applied them with `secure`). Auth: `user` / `password` (AUTH PLAIN/LOGIN) when both
 *   are set. DKIM signing when `domain` (DKIM domain), `secretKey` (private key) and `accountSid` (key
 *   selector) are all set, as in Novu.
 * - Message: `From: "<senderName>" <from>` (`overrides.from` / `overrides.senderName` win), `To` = the
 *   subscriber's email, `Subject`, an HTML part (the rendered content) and a text part derived from it.
 * - `Message-ID: <jobId@sender-domain>`: deterministic, so a resend of the same job (a retry after a
 *   timeout, a redelivery after a crash) carries the same Message-ID and receiving systems can
 *   recognise it. It is also the provider id stored on the message (nodemailer's `info.messageId`).
 *   SMTP has no idempotency key: a retry after a lost final reply may deliver twice.
 * - Overrides (`overrides.providers.nodemailer`): `replyTo`, `cc`, `bcc`, `headers`, `attachments`
 *   (`{ name, file: Base64, mime? }`), and any other nodemailer message field (`priority`, `list`,
 *   `inReplyTo`, `references`, ...) merged into the message; `messageId` always stays the job's. File
 *   and URL content is refused (`disableFileAccess` / `disableUrlAccess`): a trigger must not make the
 *   server read its own files or fetch URLs.
 * - Transient: connection failures, timeouts, and 4xx replies (421, 450, 451, 452, 454 ...; 503 too,
 *   as nodemailer reads it); permanent: 5xx replies (550 refused recipient, 554, 535 bad credentials)
 *   and configuration errors (TLS, missing auth). The error's `code` is the reply code (`'550'`), or
 *   nodemailer's code when the server never replied; `raw` holds `responseCode` and `response`.
 * - Timeouts: `message.timeoutMs` is the connection, greeting and socket (inactivity) timeout, and a
 *   whole-send budget (an `AbortSignal` that ends a trickling delivery).
 *
 * Transports are pooled per credentials rather than created per send: a pooled transport keeps up to
 * {@link SMTP_POOL_MAX_CONNECTIONS} authenticated connections open and sends the next messages over
 * them, skipping the TCP connect, greeting, STARTTLS and AUTH round trips that otherwise cost more than
 * the message itself, and bounding the connections one worker opens to one server however high its
 * concurrency. An idle connection is closed (QUIT) after the shorter of {@link SMTP_CONNECTION_IDLE_MS}
 * and half the send timeout (so the socket timeout never fires on an idle connection), and a transport unused for
 * {@link SMTP_TRANSPORT_IDLE_MS} is closed and forgotten, so many tenants' SMTP servers do not pile up
 * open sockets. The pool does not re-queue a message whose connection dropped (`maxRequeues: 0`): the
 * failure goes back to the queue, whose retries are logged.
 * @publicApi
 */
@Injectable()
export class NodemailerProvider extends DeliveryProvider implements OnModuleDestroy {
  readonly providerId = 'nodemailer';
  readonly channel = 'email';
  override readonly requiredCredentials = ['host', 'port', 'from'] as const;
  private readonly logger = new Logger(NodemailerProvider.name);
  private readonly transports = new ClientCache<Transporter<SMTPPoolSentMessageInfo>>({
    close: (transport) => transport.close(),
    idleMs: SMTP_TRANSPORT_IDLE_MS,
    maxSize: SMTP_TRANSPORT_CACHE_SIZE,
  });

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const options = smtpTransportOptions(credentials, message.timeoutMs);
    const parts = emailParts(message, credentials);
    const to = requireRecipientField(message.to.email, 'email address');
    const overrides = emailOverrides(message.overrides);
    const messageId = `<${message.jobId}@${senderDomain(parts.from)}>`;

    const mail = mergeVendorFields(
      {
        from: parts.fromName ? { name: parts.fromName, address: parts.from } : parts.from,
        to,
        subject: parts.subject,
        html: parts.html,
        ...(parts.text ? { text: parts.text } : {}),
        ...(overrides.replyTo ? { replyTo: overrides.replyTo } : {}),
        ...(overrides.cc.length ? { cc: overrides.cc } : {}),
        ...(overrides.bcc.length ? { bcc: overrides.bcc } : {}),
        ...(Object.keys(overrides.headers).length ? { headers: overrides.headers } : {}),
        ...(overrides.attachments.length
          ? {
              attachments: overrides.attachments.map((attachment) => ({
                filename: attachment.name,
                content: Buffer.from(attachment.file, 'base64'),
                ...(attachment.mime ? { contentType: attachment.mime } : {}),
              })),
            }
          : {}),
      } as Record<string, unknown>,
      overrides.vendorFields,
    ) as SendMailOptions;
    const signal = AbortSignal.timeout(message.timeoutMs);
    mail.messageId = messageId;
    mail.signal = signal;

    const startedAt = Date.now();
    try {
      const info = await this.transports.use(
        options,
        () => this.createTransport(options),
        (transport) => transport.sendMail(mail),
      );
      const raw: SmtpSendRaw = { messageId: info.messageId, response: info.response, accepted: info.accepted, rejected: info.rejected };
      return { id: info.messageId, raw };
    } catch (error) {
      const failure = smtpDeliveryError(error, signal.aborted, message.timeoutMs);
      this.logger.debug(`Job ${message.jobId}: SMTP send failed after ${Date.now() - startedAt} ms: ${failure.message}`);
      throw failure;
    }
  }

  onModuleDestroy(): void {
    this.transports.closeAll();
  }

  private createTransport(options: SMTPPoolOptions & { pool: true }): Transporter<SMTPPoolSentMessageInfo> {
    const transport = createTransport(options);
    // Failures of a send reach its sendMail promise; an 'error' event without a listener would crash the process.
    transport.on('error', (error: Error) => this.logger.warn(`SMTP transport error: ${error.message}`));
    return transport;
  }
}

/** Nodemailer error codes of a connection that failed or dropped: the next attempt may get through. */
const TRANSIENT_SMTP_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'EPROXY', 'EMAXLIMIT', 'EABORT']);

/**
 * The pooled transport of an integration. Plain data (no functions), so it is also the transport
 * cache's key: any credential change gets a new transport.
 * @throws DeliveryError (permanent) for a missing host, a port that is not a number or TLS options that are not JSON.
 */
export function smtpTransportOptions(credentials: IntegrationCredentials, timeoutMs: number): SMTPPoolOptions & { pool: true } {
  const host = credentialString(credentials, 'host')?.trim();
  if (!host) throw invalidCredentials('The nodemailer integration has no credentials.host');
  const port = Number(typeof credentials.port === 'string' ? credentials.port.trim() : (credentials.port as unknown));
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw invalidCredentials('The nodemailer integration has no valid credentials.port');
  const user = credentialString(credentials, 'user');
  const password = credentialString(credentials, 'password');
  const tls = tlsOptions(credentials.tlsOptions);
  const dkimDomain = credentialString(credentials, 'domain');
  const dkimKey = credentialString(credentials, 'secretKey');
  const dkimSelector = credentialString(credentials, 'accountSid');
  return {
    pool: true,
    host,
    port,
    secure: flag(credentials.secure),
    requireTLS: flag(credentials.requireTls),
    ignoreTLS: flag(credentials.ignoreTls),
    ...(user && password ? { auth: { user, pass: password } } : {}),
    ...(tls ? { tls } : {}),
    ...(dkimDomain && dkimKey && dkimSelector ? { dkim: { domainName: dkimDomain, keySelector: dkimSelector, privateKey: dkimKey } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    maxConnections: SMTP_POOL_MAX_CONNECTIONS,
    // Below the socket timeout, so an idle connection is closed politely (QUIT) before it times out.
    idleTimeout: Math.max(1, Math.min(SMTP_CONNECTION_IDLE_MS, Math.floor(timeoutMs / 2))),
    maxRequeues: 0,
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

/**
 * Translates what `sendMail` threw into a {@link DeliveryError} (see {@link NodemailerProvider} for the rules).
 * @param timedOut Whether the whole-send budget ran out (the abort error says so less reliably).
 */
export function smtpDeliveryError(error: unknown, timedOut: boolean, timeoutMs: number): DeliveryError {
  const failure = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as SmtpErrorLike;
  const raw: SmtpErrorRaw = {};
  if (typeof failure.code === 'string') raw.code = failure.code;
  if (typeof failure.command === 'string') raw.command = failure.command;
  if (typeof failure.responseCode === 'number') raw.responseCode = failure.responseCode;
  if (typeof failure.response === 'string') raw.response = failure.response;
  if (typeof failure.message === 'string') raw.message = failure.message;

  // The whole-send budget ran out, or one of nodemailer's phase timeouts (connect, greeting, socket
  // inactivity: the same budget) fired first: whichever wins the race, it is a timeout.
  if (timedOut || raw.code === 'ETIMEDOUT') {
    const detail = raw.code === 'ETIMEDOUT' && raw.message ? `: ${raw.message}` : '';
    return new DeliveryError(`SMTP server did not answer within ${timeoutMs} ms${detail}`, raw, { transient: true, code: 'timeout' });
  }
  if (raw.responseCode !== undefined) {
    // RFC 5321: 4yz replies are transient, 5yz permanent; 503 (bad sequence) says the session was in the
    // wrong state, not that the message was refused, so nodemailer (and we) retry it.
    const permanent = raw.responseCode >= 500 && raw.responseCode < 600 && raw.responseCode !== 503;
    const reply = raw.response ?? raw.message ?? '';
    return new DeliveryError(`SMTP server responded with ${raw.responseCode}${raw.command ? ` to ${raw.command}` : ''}: ${reply}`, raw, {
      transient: !permanent,
      code: String(raw.responseCode),
    });
  }
  const transient = raw.code !== undefined && TRANSIENT_SMTP_CODES.has(raw.code);
  return new DeliveryError(`SMTP ${transient ? 'connection' : 'send'} failed: ${raw.message ?? raw.code ?? 'unknown error'}`, raw, {
    transient,
    code: raw.code,
  });
}

/** The fields of a nodemailer error this module reads. */
interface SmtpErrorLike {
  message?: unknown;
  code?: unknown;
  command?: unknown;
  responseCode?: unknown;
  response?: unknown;
}

/** The domain of the sender address (the Message-ID's right side). */
function senderDomain(from: string): string {
  const at = from.lastIndexOf('@');
  const domain = at >= 0 ? from.slice(at + 1).replace(/[>\s]/g, '') : '';
  return domain || 'localhost';
}

/** A switch credential: `true` or `'true'` (the contract stores switches as booleans, forms send strings). */
function flag(value: unknown): boolean {
  return value === true || value === 'true';
}

function tlsOptions(value: IntegrationCredentials[string]): ConnectionOptions | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (isPlainObject(value)) return value as ConnectionOptions;
  if (typeof value === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = undefined;
    }
    if (isPlainObject(parsed)) return parsed as ConnectionOptions;
  }
  throw invalidCredentials('The nodemailer integration credentials.tlsOptions is not a JSON object of TLS options');
}

function invalidCredentials(text: string): DeliveryError {
  return new DeliveryError(text, undefined, { code: 'invalid_credentials' });
}
