import { type PublishCommandInput, PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { AWS_CLIENT_CACHE_SIZE, AWS_CLIENT_IDLE_MS, awsClientSettings, awsDeliveryError } from '../aws-clients';
import { ClientCache } from '../client-cache';
import { type DeliveryMessage, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { requireRecipientField } from '../webhook-request';
import { mergeVendorFields } from '../vendor-http';

/** What the `sns` provider records for a sent message. @publicApi */
export interface SnsSendRaw {
  status?: number;
  /** SNS's answer (`PublishResult`): `{ MessageId }`. */
  body: { MessageId?: string };
  requestId?: string;
}

/**
 * SMS through Amazon SNS (`Publish` to a phone number), with the official `@aws-sdk/client-sns` client.
 *
 * - Endpoint: `POST /` on `https://sns.<region>.amazonaws.com`, or on `credentials.baseUrl` when set
 *   (the client's `endpoint`). SNS speaks the AWS query protocol: a form body
 *   `Action=Publish&Version=2010-03-31&Message=...&PhoneNumber=...`, answered in XML.
 * - Auth: AWS Signature V4 (service `sns`) with Novu's SNS credential names: `apiKey` = access key id,
 *   `secretKey` = secret access key, `region`.
 * - Request: `PhoneNumber` = the subscriber's phone (E.164), `Message` = the rendered content.
 * - Overrides (`overrides.providers.sns`): `Publish` input fields merged into the request (objects key
 *   by key), e.g. `MessageAttributes: { 'AWS.SNS.SMS.SenderID': { DataType: 'String', StringValue: 'Shop' },
 *   'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' } }`.
 * - Idempotency: none. `Publish` to a phone number takes no deduplication id (only FIFO topics do), so a
 *   redelivered job may send twice.
 * - Provider id stored on the message: SNS's `MessageId`.
 * - Transient: 5xx / `server` faults (`InternalError`), throttling (`Throttling`, `Throttled` 429),
 *   timeouts and socket errors; permanent: `InvalidParameter`, `OptedOut`, `AuthorizationError`, bad
 *   credentials. The SDK itself never retries (`maxAttempts: 1`): retries go through the queue.
 * - Clients are cached per credentials (see `ClientCache`), destroyed after 5 idle minutes and at shutdown.
 * @publicApi
 */
@Injectable()
export class SnsProvider extends DeliveryProvider implements OnModuleDestroy {
  readonly providerId = 'sns';
  readonly channel = 'sms';
  override readonly requiredCredentials = ['apiKey', 'secretKey', 'region'] as const;
  private readonly logger = new Logger(SnsProvider.name);
  private readonly clients = new ClientCache<SNSClient>({
    close: (client) => client.destroy(),
    idleMs: AWS_CLIENT_IDLE_MS,
    maxSize: AWS_CLIENT_CACHE_SIZE,
  });

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const settings = awsClientSettings(this.providerId, credentials, message.timeoutMs);
    const phone = requireRecipientField(message.to.phone, 'phone number');
    const base: PublishCommandInput = { PhoneNumber: phone, Message: message.content };
    const input = mergeVendorFields(base as unknown as Record<string, unknown>, message.overrides) as unknown as PublishCommandInput;

    const startedAt = Date.now();
    try {
      const output = await this.clients.use(
        settings,
        () => new SNSClient(settings),
        (client) => client.send(new PublishCommand(input), { abortSignal: AbortSignal.timeout(message.timeoutMs) }),
      );
      const raw: SnsSendRaw = { status: output.$metadata.httpStatusCode, body: { MessageId: output.MessageId }, requestId: output.$metadata.requestId };
      return { id: output.MessageId, raw };
    } catch (error) {
      const failure = awsDeliveryError('Amazon SNS', error, message.timeoutMs);
      this.logger.debug(`Job ${message.jobId}: SNS publish failed after ${Date.now() - startedAt} ms: ${failure.message}`);
      throw failure;
    }
  }

  onModuleDestroy(): void {
    this.clients.closeAll();
  }
}
