import { type SendEmailCommandInput, SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { AWS_CLIENT_CACHE_SIZE, AWS_CLIENT_IDLE_MS, awsClientSettings, awsDeliveryError } from '../aws-clients';
import { ClientCache } from '../client-cache';
import { type DeliveryMessage, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { requireRecipientField } from '../webhook-request';
import { emailOverrides } from './email-api';
import { mergeVendorFields } from '../vendor-http';
import { type EmailParts, emailParts } from './email-content';

/** What the `ses` provider records for a sent message. @publicApi */
export interface SesSendRaw {
  status?: number;
  /** SES's answer: `{ MessageId }`. */
  body: { MessageId?: string };
  requestId?: string;
}

/**
 * Email through Amazon SES, API v2 (`SendEmail`), with the official `@aws-sdk/client-sesv2` client.
 *
 * - Endpoint: `POST /v2/email/outbound-emails` (REST-JSON) on `https://email.<region>.amazonaws.com`,
 *   or on `credentials.baseUrl` when set (the client's `endpoint`).
 * - Auth: AWS Signature V4 (service `ses`) with Novu's SES credential names: `apiKey` = access key id,
 *   `secretKey` = secret access key, `region`.
 * - Request: `FromEmailAddress` = `"<senderName>" <from>` (the name RFC 2047-encoded when not ASCII;
 *   `overrides.from` / `overrides.senderName` win), `Destination.ToAddresses` = the subscriber's email,
 *   `Content.Simple` = `Subject`, `Body.Html` (the rendered content) and `Body.Text` (derived from it),
 *   all `Charset: 'UTF-8'`.
 * - Overrides (`overrides.providers.ses`): `replyTo` → `ReplyToAddresses`, `cc` / `bcc` →
 *   `Destination.CcAddresses` / `BccAddresses`, `headers` → `Content.Simple.Headers`, `attachments`
 *   (`{ name, file: Base64, mime? }`) → `Content.Simple.Attachments`; any other key is a `SendEmail`
 *   input field (`ConfigurationSetName`, `EmailTags`, `ListManagementOptions`, ...) merged into the
 *   request (objects key by key).
 * - Idempotency: none. `SendEmail` takes no idempotency token, so a redelivered job may send twice.
 * - Provider id stored on the message: SES's `MessageId`.
 * - Transient: 5xx / `server` faults, throttling (`TooManyRequestsException` 429, `LimitExceededException`,
 *   `Throttling`), timeouts and socket errors; permanent: `MessageRejected`, `MailFromDomainNotVerifiedException`,
 *   `AccountSuspendedException`, `SendingPausedException`, `BadRequestException`, bad credentials.
 *   The SDK itself never retries (`maxAttempts: 1`): retries go through the queue, each one logged.
 * - Clients are cached per credentials (see `ClientCache`), destroyed after 5 idle minutes and at shutdown.
 * @publicApi
 */
@Injectable()
export class SesProvider extends DeliveryProvider implements OnModuleDestroy {
  readonly providerId = 'ses';
  readonly channel = 'email';
  override readonly requiredCredentials = ['apiKey', 'secretKey', 'region', 'from'] as const;
  private readonly logger = new Logger(SesProvider.name);
  private readonly clients = new ClientCache<SESv2Client>({
    close: (client) => client.destroy(),
    idleMs: AWS_CLIENT_IDLE_MS,
    maxSize: AWS_CLIENT_CACHE_SIZE,
  });

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const settings = awsClientSettings(this.providerId, credentials, message.timeoutMs);
    const parts = emailParts(message, credentials);
    const to = requireRecipientField(message.to.email, 'email address');
    const input = sendEmailInput(parts, to, message.overrides);

    const startedAt = Date.now();
    try {
      const output = await this.clients.use(
        settings,
        () => new SESv2Client(settings),
        (client) => client.send(new SendEmailCommand(input), { abortSignal: AbortSignal.timeout(message.timeoutMs) }),
      );
      const raw: SesSendRaw = { status: output.$metadata.httpStatusCode, body: { MessageId: output.MessageId }, requestId: output.$metadata.requestId };
      return { id: output.MessageId, raw };
    } catch (error) {
      const failure = awsDeliveryError('Amazon SES', error, message.timeoutMs);
      this.logger.debug(`Job ${message.jobId}: SES send failed after ${Date.now() - startedAt} ms: ${failure.message}`);
      throw failure;
    }
  }

  onModuleDestroy(): void {
    this.clients.closeAll();
  }
}

/** The `SendEmail` input of a message (see {@link SesProvider}). */
export function sendEmailInput(parts: EmailParts, to: string, rawOverrides: Record<string, unknown>): SendEmailCommandInput {
  const overrides = emailOverrides(rawOverrides);
  const utf8 = (data: string) => ({ Data: data, Charset: 'UTF-8' });
  const input: SendEmailCommandInput = {
    FromEmailAddress: parts.fromName ? `${displayName(parts.fromName)} <${parts.from}>` : parts.from,
    Destination: {
      ToAddresses: [to],
      ...(overrides.cc.length ? { CcAddresses: overrides.cc } : {}),
      ...(overrides.bcc.length ? { BccAddresses: overrides.bcc } : {}),
    },
    ...(overrides.replyTo ? { ReplyToAddresses: [overrides.replyTo] } : {}),
    Content: {
      Simple: {
        Subject: utf8(parts.subject),
        // SES refuses an empty part: the text part is left out when the HTML has no text.
        Body: { Html: utf8(parts.html), ...(parts.text ? { Text: utf8(parts.text) } : {}) },
        ...(Object.keys(overrides.headers).length ? { Headers: Object.entries(overrides.headers).map(([Name, Value]) => ({ Name, Value })) } : {}),
        ...(overrides.attachments.length
          ? {
              Attachments: overrides.attachments.map((attachment) => ({
                FileName: attachment.name,
                RawContent: Buffer.from(attachment.file, 'base64'),
                ...(attachment.mime ? { ContentType: attachment.mime } : {}),
              })),
            }
          : {}),
      },
    },
  };
  return mergeVendorFields(input as unknown as Record<string, unknown>, overrides.vendorFields) as unknown as SendEmailCommandInput;
}

/**
 * The sender's display name as SES takes it: quoted when ASCII (quotes and backslashes escaped), an
 * RFC 2047 encoded word otherwise (SES rejects raw non-ASCII in `FromEmailAddress`).
 */
function displayName(name: string): string {
  if (/^[\x20-\x7e]*$/.test(name)) return `"${name.replace(/["\\]/g, '\\$&')}"`;
  return `=?UTF-8?B?${Buffer.from(name, 'utf8').toString('base64')}?=`;
}
