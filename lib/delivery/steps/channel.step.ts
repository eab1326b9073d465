import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ChannelConnectionEntity } from '../../channel-connections/channel-connection.entity';
import { ChannelConnectionsService } from '../../channel-connections/channel-connections.service';
import { NotificationsDatabase } from '../../common/database';
import type { ChannelType } from '../../common/enums';
import { generateId } from '../../common/id';
import type { IntegrationEntity } from '../../integrations/integration.entity';
import { type IntegrationCredentials, IntegrationsService } from '../../integrations/integrations.service';
import { InjectNotificationsOptions } from '../../notifications.constants';
import type { ResolvedNotificationsOptions } from '../../notifications.options';
import {
  type DeliveryChannel,
  type DeliveryConnection,
  DeliveryError,
  type DeliveryMessage,
  type DeliveryProvider,
  type DeliveryRecipient,
} from '../../providers/delivery-provider';
import { DeliveryProviderRegistry } from '../../providers/delivery-provider.registry';
import { collectSecrets, redactSecrets } from '../../providers/redact';
import { contextKeys } from '../batch-writes';
import { DETAILS, type DetailDraft, line } from '../execution-log';
import type { MessageDraft, RunJob, StepBatch, StepHandler, StepOutcome } from '../run-context';
import { SendSlots } from '../send-slots';
import { matchesFilters } from '../step-conditions';
import { type RenderedMessage, renderMessage, subscriberView } from '../template-context';
import { TemplateRenderer } from '../template-renderer';

/** Extra time a provider gets past `delivery.timeoutSeconds` before the worker stops waiting for it. */
const SEND_TIMEOUT_GRACE_MS = 1000;
/** The longest vendor answer kept in an execution detail's `raw` (JSON characters); longer ones are cut. */
const RAW_LIMIT = 8192;
/** The message's `errorId` when the provider gives no error code of its own. */
const DEFAULT_ERROR_ID = 'unexpected_provider_error';

/** A send that passed every check, waiting for its provider call. */
interface PreparedSend {
  index: number;
  run: RunJob;
  integration: IntegrationEntity;
  provider: DeliveryProvider;
  credentials: IntegrationCredentials;
  /** The credentials' secret values, for redacting what the vendor answers. */
  secrets: string[];
  message: DeliveryMessage;
  draft: MessageDraft;
  details: DetailDraft[];
}

/** The channel's failure text when the provider cannot reach the subscriber (reference/behavior.md §8.7). */
const UNREACHABLE: Record<DeliveryChannel, string> = {
  email: DETAILS.missingRecipient,
  sms: DETAILS.missingRecipient,
  chat: DETAILS.missingWebhookUrl,
  push: DETAILS.missingDeviceTokens,
};

/**
 * `email`, `sms`, `chat` and `push`: picks the integration, checks the subscriber can be reached on
 * the channel, renders the message, writes it and hands it to the integration's provider.
 *
 * - At most `worker.concurrency` sends are in flight per process (one {@link SendSlots} for every
 *   batch), each bounded by `delivery.timeoutSeconds`.
 * - A transient failure (network, timeout, 429, 5xx) puts the job back in the queue with exponential
 *   backoff, up to `delivery.retryLimit` times; every line of a retry is marked `isRetry`. A permanent
 *   failure, or the last retry's, fails the job and marks the message `error`.
 * - Vendor answers are stored with the integration's credentials (and the connection's token) redacted.
 *
 * External sends happen at least once: if the worker dies after the vendor accepted a message but
 * before the batch commits, the job runs again. Providers pass the job id as the vendor's idempotency
 * key where the vendor has one (DESIGN §8).
 */
@Injectable()
export class ChannelStep implements StepHandler {
  readonly types = ['email', 'sms', 'chat', 'push'] as const;
  private readonly slots: SendSlots;

  constructor(
    private readonly db: NotificationsDatabase,
    private readonly renderer: TemplateRenderer,
    private readonly providers: DeliveryProviderRegistry,
    private readonly integrations: IntegrationsService,
    private readonly connections: ChannelConnectionsService,
    @InjectNotificationsOptions() private readonly options: ResolvedNotificationsOptions,
  ) {
    this.slots = new SendSlots(options.worker.concurrency);
  }

  async run(jobs: RunJob[], batch: StepBatch): Promise<StepOutcome[]> {
    const outcomes: StepOutcome[] = new Array(jobs.length);
    const chosen = jobs.map((run) => this.selectIntegration(run, batch, run.job.type as DeliveryChannel));
    const connections = await this.loadConnections(jobs, chosen, batch.em);
    // Credentials are decrypted (and their secrets listed) once per integration and batch, only here in the worker.
    const credentialsById = new Map<string, { credentials: IntegrationCredentials; secrets: string[] }>();
    const credentialsOf = (integration: IntegrationEntity) => {
      let entry = credentialsById.get(integration.id);
      if (!entry) {
        const credentials = this.integrations.decryptCredentials(integration);
        credentialsById.set(integration.id, (entry = { credentials, secrets: collectSecrets(credentials) }));
      }
      return entry;
    };
    const sends: PreparedSend[] = [];
    jobs.forEach((run, index) => {
      const integration = chosen[index];
      const prepared = this.prepare(run, integration, integration && credentialsOf(integration), connections.get(run.job.id));
      if ('status' in prepared) outcomes[index] = prepared;
      else sends.push({ ...prepared, index });
    });
    await Promise.all(
      sends.map(async (send) => {
        outcomes[send.index] = await this.slots.run(() => this.send(send));
      }),
    );
    return outcomes;
  }

  /** Everything before the provider call; an outcome when the job cannot be sent. */
  private prepare(
    run: RunJob,
    integration: IntegrationEntity | undefined,
    access: { credentials: IntegrationCredentials; secrets: string[] } | undefined,
    connection: DeliveryConnection | undefined,
  ): StepOutcome | Omit<PreparedSend, 'index'> {
    const channel = run.job.type as DeliveryChannel;
    const isRetry = run.job.attempts > 0;
    const details: DetailDraft[] = [line.pending(DETAILS.startSending)];
    const fail = (detail: string, raw?: unknown, providerId?: string): StepOutcome => ({
      status: 'failed',
      details: markRetry([...details, line.failed(detail, { providerId, raw })], isRetry),
      error: { message: detail, raw },
      ...(providerId && { providerId }),
    });

    if (!integration || !access) return fail(DETAILS.noIntegration);
    const { credentials, secrets } = access;
    const providerId = integration.providerId;
    details.push(
      line.pending(DETAILS.integrationSelected, {
        providerId,
        raw: { providerId, identifier: integration.identifier, name: integration.name, _environmentId: integration.environmentId, _id: integration.id },
      }),
    );
    const provider = this.providers.get(providerId);
    if (!provider) return fail(DETAILS.providerError, { error: `No delivery provider is registered for "${providerId}"` }, providerId);

    const recipient = this.recipient(run, channel, providerId, connection);
    if (!provider.canReach(recipient, credentials)) {
      return fail(UNREACHABLE[channel], channel === 'email' || channel === 'sms' ? { missing: channel === 'email' ? 'email' : 'phone' } : undefined, providerId);
    }

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
      errorId: null,
      errorText: null,
      providerMessageId: null,
    };
    // A retry updates the first try's message (one per job), so it is created only once.
    if (!isRetry) details.push(line.pending(DETAILS.messageCreated, { providerId, messageId: draft.id, raw: { messageId: draft.id } }));
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
      timeoutMs: this.options.delivery.timeoutSeconds * 1000,
      attempt: run.job.attempts,
    };
    return { run, integration, provider, credentials, secrets, message, draft, details: markRetry(details, isRetry) };
  }

  private async send({ integration, provider, credentials, secrets: credentialSecrets, message, draft, details }: PreparedSend): Promise<StepOutcome> {
    const providerId = integration.providerId;
    const isRetry = message.attempt > 0;
    // A channel connection's token is the one secret that varies per job.
    const token = message.to.connection?.accessToken;
    const secrets = token ? collectSecrets(credentials, [token]) : credentialSecrets;
    try {
      const result = await withDeadline(provider.send(message, credentials), message.timeoutMs + SEND_TIMEOUT_GRACE_MS, providerId);
      const raw = capRaw(redactSecrets(result.raw ?? (result.id ? { id: result.id } : undefined), secrets));
      return {
        status: 'completed',
        providerId,
        message: { ...draft, providerMessageId: result.id ?? null },
        details: [...details, line.success(DETAILS.messageSent, { providerId, messageId: draft.id, raw, isRetry })],
      };
    } catch (error) {
      const text = redactSecrets(error instanceof Error ? error.message : String(error), secrets);
      const delivery = error instanceof DeliveryError ? error : undefined;
      const response = delivery?.raw === undefined ? undefined : capRaw(redactSecrets(delivery.raw, secrets));
      const errorId = delivery?.code ?? DEFAULT_ERROR_ID;
      const { retryLimit } = this.options.delivery;
      if (delivery?.transient && message.attempt < retryLimit) {
        const retryAt = new Date(Date.now() + this.retryDelayMs(message.attempt, delivery.retryAfterMs));
        const raw = { error: text, ...(response !== undefined && { response }), attempt: message.attempt + 1, retryLimit, retryAt: retryAt.toISOString() };
        return {
          status: 'delayed',
          retryAt,
          providerId,
          message: { ...draft, status: 'warning', errorId, errorText: text },
          details: [...details, line.warning(DETAILS.providerRetryScheduled, { providerId, messageId: draft.id, raw, isRetry })],
          error: { message: text, raw },
        };
      }
      const raw = {
        error: text,
        ...(response !== undefined && { response }),
        ...(delivery?.transient && { attempts: message.attempt + 1 }),
      };
      return {
        status: 'failed',
        providerId,
        message: { ...draft, status: 'error', errorId, errorText: text },
        details: [...details, line.failed(DETAILS.providerError, { providerId, messageId: draft.id, raw, isRetry })],
        error: { message: text, raw },
      };
    }
  }

  /**
   * Exponential backoff from `delivery.retryDelaySeconds` (×2 per retry, ±20% jitter so a vendor
   * outage does not bring every job back at the same instant), at least the vendor's `Retry-After`,
   * at most `delivery.maxRetryDelaySeconds`.
   */
  private retryDelayMs(attempt: number, retryAfterMs: number | undefined): number {
    const { retryDelaySeconds, maxRetryDelaySeconds } = this.options.delivery;
    const backoff = retryDelaySeconds * 1000 * 2 ** attempt * (0.8 + Math.random() * 0.4);
    return Math.min(Math.max(backoff, retryAfterMs ?? 0), maxRetryDelaySeconds * 1000);
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

  /**
   * The channel connection (workspace token) of each chat job, by job id, with one statement for the
   * batch. A connection matches the job's integration and, in order of preference: the subscriber;
   * a context the trigger gave (all of the connection's context keys among the trigger's); or neither
   * (a connection for the whole workspace).
   */
  private async loadConnections(runs: RunJob[], chosen: Array<IntegrationEntity | undefined>, em: EntityManager): Promise<Map<string, DeliveryConnection>> {
    const byJob = new Map<string, DeliveryConnection>();
    const chat = runs.map((run, i) => ({ run, integration: chosen[i] })).filter(({ run, integration }) => run.job.type === 'chat' && integration);
    if (!chat.length) return byJob;
    const { rows } = await this.db.query(
      `SELECT * FROM ntf_channel_connection
        WHERE environment_id = ANY($1::text[]) AND integration_identifier = ANY($2::text[])
          AND (subscriber_id IS NULL OR subscriber_id = ANY($3::text[]))
        ORDER BY created_at DESC, id DESC`,
      [
        [...new Set(chat.map(({ run }) => run.job.environmentId))],
        [...new Set(chat.map(({ integration }) => integration!.identifier))],
        [...new Set(chat.map(({ run }) => run.job.externalSubscriberId))],
      ],
      em,
    );
    const loaded = this.db.read(ChannelConnectionEntity, rows);
    for (const { run, integration } of chat) {
      const candidates = loaded.filter((c) => c.environmentId === run.job.environmentId && c.integrationIdentifier === integration!.identifier);
      const keys = new Set(contextKeys(run.notification.context));
      const match =
        candidates.find((c) => c.subscriberId === run.job.externalSubscriberId) ??
        candidates.find((c) => c.subscriberId === null && c.contextKeys.length > 0 && c.contextKeys.every((key) => keys.has(key))) ??
        candidates.find((c) => c.subscriberId === null && c.contextKeys.length === 0);
      if (!match) continue;
      const auth = this.connections.decryptAuth(match);
      byJob.set(run.job.id, {
        identifier: match.identifier,
        workspaceId: match.workspace.id,
        ...(match.workspace.name !== undefined && { workspaceName: match.workspace.name }),
        accessToken: auth.accessToken,
      });
    }
    return byJob;
  }

  /** Where the subscriber can be reached on the channel, from its profile, channel settings and connections. */
  private recipient(run: RunJob, channel: DeliveryChannel, providerId: string, connection: DeliveryConnection | undefined): DeliveryRecipient {
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
      const chat = settings.find((c) => c.credentials.webhookUrl) ?? settings.find((c) => c.credentials.channel);
      if (chat?.credentials.webhookUrl) recipient.webhookUrl = chat.credentials.webhookUrl;
      if (chat?.credentials.channel) recipient.channel = chat.credentials.channel;
      if (channel === 'chat' && connection) recipient.connection = connection;
    }
    return recipient;
  }
}

/** A vendor answer small enough for the execution log: as is, or its JSON cut at {@link RAW_LIMIT} characters. */
function capRaw(raw: unknown): unknown {
  if (raw === undefined) return raw;
  const text = JSON.stringify(raw);
  return text !== undefined && text.length > RAW_LIMIT ? { truncated: `${text.slice(0, RAW_LIMIT)}…` } : raw;
}

/** Lines of a retry are marked so in the log (the contract's `isRetry`). */
function markRetry(details: DetailDraft[], isRetry: boolean): DetailDraft[] {
  return isRetry ? details.map((detail) => ({ ...detail, isRetry: true })) : details;
}

/**
 * The provider's promise, or a transient failure once `ms` have passed: a provider that ignores its
 * `timeoutMs` must not hold the batch (and its transaction) forever.
 */
function withDeadline<T>(promise: Promise<T>, ms: number, providerId: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeliveryError(`The ${providerId} provider did not finish within ${ms} ms`, undefined, { transient: true, code: 'timeout' })), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
