import { Injectable } from '@nestjs/common';
import type { ChannelType } from '../../common/enums';
import { generateId } from '../../common/id';
import type { IntegrationEntity } from '../../integrations/integration.entity';
import { IntegrationsService } from '../../integrations/integrations.service';
import { type DeliveryChannel, DeliveryError, type DeliveryMessage, type DeliveryRecipient } from '../../providers/delivery-provider';
import { DeliveryProviderRegistry } from '../../providers/delivery-provider.registry';
import { DETAILS, type DetailDraft, line } from '../execution-log';
import type { MessageDraft, RunJob, StepBatch, StepHandler, StepOutcome } from '../run-context';
import { matchesFilters } from '../step-conditions';
import { type RenderedMessage, renderMessage, subscriberView } from '../template-context';
import { TemplateRenderer } from '../template-renderer';

/** Sends of one batch in flight at once: enough to hide vendor latency, few enough to be polite. */
const SEND_CONCURRENCY = 16;

/** A send that passed every check, waiting for its provider call. */
interface PreparedSend {
  index: number;
  integration: IntegrationEntity;
  message: DeliveryMessage;
  draft: MessageDraft;
  details: DetailDraft[];
}

/**
 * `email`, `sms`, `chat` and `push`: picks the integration, checks the subscriber can be reached on
 * the channel, renders the message, writes it and hands it to the integration's provider.
 *
 * External sends happen at least once: if the worker dies after the vendor accepted a message but
 * before the batch commits, the job runs again. Providers pass the job id as the vendor's idempotency
 * key where the vendor has one (DESIGN §8).
 */
@Injectable()
export class ChannelStep implements StepHandler {
  readonly types = ['email', 'sms', 'chat', 'push'] as const;

  constructor(
    private readonly renderer: TemplateRenderer,
    private readonly providers: DeliveryProviderRegistry,
    private readonly integrations: IntegrationsService,
  ) {}

  async run(jobs: RunJob[], batch: StepBatch): Promise<StepOutcome[]> {
    const outcomes: StepOutcome[] = new Array(jobs.length);
    const sends: PreparedSend[] = [];
    jobs.forEach((run, index) => {
      const prepared = this.prepare(run, batch);
      if ('status' in prepared) outcomes[index] = prepared;
      else sends.push({ ...prepared, index });
    });
    let next = 0;
    const worker = async () => {
      while (next < sends.length) {
        const send = sends[next++];
        outcomes[send.index] = await this.send(send);
      }
    };
    await Promise.all(Array.from({ length: Math.min(SEND_CONCURRENCY, sends.length) }, worker));
    return outcomes;
  }

  /** Everything before the provider call; an outcome when the job cannot be sent. */
  private prepare(run: RunJob, batch: StepBatch): StepOutcome | Omit<PreparedSend, 'index'> {
    const channel = run.job.type as DeliveryChannel;
    const details: DetailDraft[] = [line.pending(DETAILS.startSending)];
    const fail = (detail: string, raw?: unknown, providerId?: string): StepOutcome => ({
      status: 'failed',
      details: [...details, line.failed(detail, { providerId, raw })],
      error: { message: detail, raw },
      ...(providerId && { providerId }),
    });

    const integration = this.selectIntegration(run, batch, channel);
    if (!integration) return fail(DETAILS.noIntegration);
    const providerId = integration.providerId;
    details.push(
      line.pending(DETAILS.integrationSelected, {
        providerId,
        raw: { providerId, identifier: integration.identifier, name: integration.name, _environmentId: integration.environmentId, _id: integration.id },
      }),
    );

    const recipient = this.recipient(run, channel, providerId);
    if (channel === 'email' && !recipient.email) return fail(DETAILS.missingRecipient, { missing: 'email' }, providerId);
    if (channel === 'sms' && !recipient.phone) return fail(DETAILS.missingRecipient, { missing: 'phone' }, providerId);
    const credentials = this.integrations.decryptCredentials(integration);
    if (channel === 'chat' && !recipient.webhookUrl && !credentials.webhookUrl) return fail(DETAILS.missingWebhookUrl, undefined, providerId);
    if (channel === 'push' && !recipient.deviceTokens?.length) return fail(DETAILS.missingDeviceTokens, undefined, providerId);

    const template = run.step.template ?? {};
    let rendered: RenderedMessage;
    try {
      rendered = renderMessage(this.renderer, template, run);
    } catch (error) {
      return fail(DETAILS.contentNotGenerated, { error: (error as Error).message }, providerId);
    }

    const draft: MessageDraft = {
      id: generateId(),
      channel,
      providerId,
      subject: rendered.subject ?? null,
      title: rendered.title ?? null,
      content: rendered.content,
      cta: rendered.url ? { type: 'redirect', data: { url: rendered.url } } : {},
      email: channel === 'email' ? (recipient.email ?? null) : null,
      phone: channel === 'sms' ? (recipient.phone ?? null) : null,
      directWebhookUrl: channel === 'chat' ? (recipient.webhookUrl ?? null) : null,
      deviceTokens: channel === 'push' ? (recipient.deviceTokens ?? null) : null,
      status: 'sent',
      errorText: null,
      providerMessageId: null,
    };
    details.push(line.pending(DETAILS.messageCreated, { providerId, messageId: draft.id, raw: { messageId: draft.id } }));
    const overrides = run.job.overrides as { providers?: Record<string, Record<string, unknown>> };
    const message: DeliveryMessage = {
      channel,
      jobId: run.job.id,
      transactionId: run.job.transactionId,
      environmentId: run.job.environmentId,
      workflowIdentifier: run.job.identifier,
      to: recipient,
      ...(rendered.subject !== undefined && { subject: rendered.subject }),
      ...(rendered.title !== undefined && { title: rendered.title }),
      content: rendered.content,
      ...(rendered.url && { ctaUrl: rendered.url }),
      payload: run.job.payload,
      overrides: overrides.providers?.[providerId] ?? {},
    };
    return { integration, message, draft, details };
  }

  private async send({ integration, message, draft, details }: PreparedSend): Promise<StepOutcome> {
    const providerId = integration.providerId;
    const provider = this.providers.get(providerId);
    try {
      if (!provider) throw new DeliveryError(`No delivery provider is registered for "${providerId}"`);
      const result = await provider.send(message, this.integrations.decryptCredentials(integration));
      return {
        status: 'completed',
        providerId,
        message: { ...draft, providerMessageId: result.id ?? null },
        details: [...details, line.success(DETAILS.messageSent, { providerId, messageId: draft.id, raw: result.raw ?? (result.id ? { id: result.id } : undefined) })],
      };
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      const raw = error instanceof DeliveryError && error.raw !== undefined ? { error: text, response: error.raw } : { error: text };
      return {
        status: 'failed',
        providerId,
        message: { ...draft, status: 'error', errorText: text },
        details: [...details, line.failed(DETAILS.providerError, { providerId, messageId: draft.id, raw })],
        error: { message: text, raw },
      };
    }
  }

  /**
   * The step's `integrationIdentifier` when it names an active integration of the channel; else the
   * first of the channel's active integrations (primary first) whose `conditions` match.
   */
  private selectIntegration(run: RunJob, batch: StepBatch, channel: ChannelType): IntegrationEntity | undefined {
    const candidates = batch.integrations(run.job.environmentId, channel);
    if (run.step.integrationIdentifier) return candidates.find((i) => i.identifier === run.step.integrationIdentifier);
    const data = { subscriber: subscriberView(run.subscriber), payload: run.job.payload };
    return candidates.find((integration) => matchesFilters(integration.conditions, data));
  }

  /** Where the subscriber can be reached on the channel, from its profile and channel settings. */
  private recipient(run: RunJob, channel: DeliveryChannel, providerId: string): DeliveryRecipient {
    const subscriber = run.subscriber;
    const recipient: DeliveryRecipient = {
      subscriberId: run.job.externalSubscriberId,
      firstName: subscriber?.firstName ?? null,
      lastName: subscriber?.lastName ?? null,
    };
    if (channel === 'email') recipient.email = subscriber?.email ?? null;
    if (channel === 'sms') recipient.phone = subscriber?.phone ?? null;
    if (channel === 'chat' || channel === 'push') {
      const settings = (subscriber?.channels ?? []).filter((c) => c.providerId === providerId);
      if (channel === 'push') recipient.deviceTokens = [...new Set(settings.flatMap((c) => c.credentials.deviceTokens ?? []))];
      const chat = settings.find((c) => c.credentials.webhookUrl);
      if (chat?.credentials.webhookUrl) recipient.webhookUrl = chat.credentials.webhookUrl;
      if (chat?.credentials.channel) recipient.channel = chat.credentials.channel;
    }
    return recipient;
  }
}
