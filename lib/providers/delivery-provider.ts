import type { ChannelType, ProviderId } from '../common/enums';
import type { IntegrationCredentials } from '../integrations/integrations.service';

/** A channel a provider delivers on: every channel but in-app, which the module delivers itself. */
export type DeliveryChannel = Exclude<ChannelType, 'in_app'>;

/** Who a message goes to: what the subscriber's profile and channel settings give for the channel. */
export interface DeliveryRecipient {
  subscriberId: string;
  firstName?: string | null;
  lastName?: string | null;
  /** Email steps. */
  email?: string | null;
  /** SMS steps. */
  phone?: string | null;
  /** Push steps: the device tokens of the subscriber's channel for this provider. */
  deviceTokens?: string[];
  /** Chat steps: the subscriber's webhook URL for this provider, when it has one. */
  webhookUrl?: string;
  /** Chat steps: the channel from the subscriber's settings, when it has one. */
  channel?: string;
  /**
   * Chat steps: the workspace connection (OAuth) matching the subscriber and the integration, when
   * there is one: what `chat.postMessage`-style APIs authenticate with. `accessToken` is decrypted.
   */
  connection?: DeliveryConnection;
}

/** A channel connection's workspace and its decrypted access token (chat providers with workspace apps). */
export interface DeliveryConnection {
  identifier: string;
  workspaceId: string;
  workspaceName?: string;
  /** A secret: never log it or put it in `DeliveryResult.raw` / `DeliveryError.raw`. */
  accessToken: string;
}

/**
 * One rendered message, ready to hand to a vendor. Templates have already been rendered (Liquid);
 * providers only translate it into the vendor's request.
 * @publicApi
 */
export interface DeliveryMessage {
  channel: DeliveryChannel;
  /**
   * The job that sends it. Stable across redeliveries of the same job, so providers pass it as the
   * vendor's idempotency key where the vendor has one (a crashed worker resends at least once).
   */
  jobId: string;
  transactionId: string;
  environmentId: string;
  /** The workflow's trigger identifier. */
  workflowIdentifier: string;
  to: DeliveryRecipient;
  subject?: string;
  title?: string;
  /** The rendered body. */
  content: string;
  /** The call to action's rendered URL, if the step has one. */
  ctaUrl?: string;
  /** The trigger payload (after custom steps), for providers that forward data. */
  payload: Record<string, unknown>;
  /** `overrides` of the trigger for this provider (`overrides.providers[providerId]`), or `{}`. */
  overrides: Record<string, unknown>;
  /**
   * How long the whole send may take (`delivery.timeoutSeconds`). HTTP providers pass it to
   * `vendorRequest`; others to their client's timeouts. A send that overruns fails as transient.
   */
  timeoutMs: number;
  /** 0 for the first try, then 1, 2, ... for the queue's retries of a transient failure. */
  attempt: number;
}

/** What a vendor answered to a successful send. */
export interface DeliveryResult {
  /** The vendor's id for the message, when it gives one. */
  id?: string;
  /** The vendor's answer, recorded in the `Message sent` execution detail. */
  raw?: unknown;
}

/** How a {@link DeliveryError} should be handled. */
export interface DeliveryErrorOptions {
  /**
   * The failure may pass (network error, timeout, 429, 5xx): the worker retries the job through the
   * queue with backoff, up to `delivery.retryLimit` times. Permanent failures (other 4xx, bad
   * credentials, a refused recipient) are not retried. @default false
   */
  transient?: boolean;
  /** The vendor asked to wait this long before retrying (`Retry-After`). */
  retryAfterMs?: number;
  /** The vendor's error code, when it gives one: stored as the message's `errorId`. */
  code?: string;
}

/**
 * A vendor rejected or failed a send. The worker records `message` and `raw` in the failed execution
 * detail and on the message; anything else a provider throws is recorded the same way (as permanent).
 * @publicApi
 */
export class DeliveryError extends Error {
  readonly transient: boolean;
  readonly retryAfterMs?: number;
  readonly code?: string;

  constructor(
    message: string,
    /** What the vendor answered (status, body), safe to store: never credentials (the worker redacts them anyway). */
    readonly raw?: unknown,
    options: DeliveryErrorOptions = {},
  ) {
    super(message);
    this.name = 'DeliveryError';
    this.transient = options.transient ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.code = options.code;
  }
}

/**
 * Sends messages through one vendor on one channel. The module ships one per supported vendor; a host
 * adds its own with `options.providers` (a provider with the same `providerId` replaces the built-in one).
 * Providers are Nest providers: they may inject anything the host's module can see.
 * @publicApi
 */
export abstract class DeliveryProvider {
  /** The contract's provider id (`ProvidersIdEnum`) integrations of this vendor carry. */
  abstract readonly providerId: ProviderId;
  abstract readonly channel: DeliveryChannel;
  /**
   * Credential names (the contract's `CredentialsDto` fields) an integration of this provider must
   * have: `IntegrationsService.create` refuses one without them, naming the missing fields.
   */
  readonly requiredCredentials: readonly string[] = [];

  /**
   * Whether the recipient can be reached at all, checked before the message is written: the worker
   * fails the step with the reference's detail for the channel (`Subscriber missing recipient
   * details`, `Webhook URL for the chat channel is missing`, `Subscriber credentials is missing the
   * tokens ...`) when not. The default needs the email, the phone, a webhook URL (the subscriber's or
   * `credentials.webhookUrl`) or device tokens; providers that reach recipients otherwise override it.
   */
  canReach(to: DeliveryRecipient, credentials: IntegrationCredentials): boolean {
    switch (this.channel) {
      case 'email':
        return hasText(to.email);
      case 'sms':
        return hasText(to.phone);
      case 'chat':
        return hasText(to.webhookUrl) || hasText(credentials.webhookUrl);
      case 'push':
        return (to.deviceTokens ?? []).some(hasText);
    }
  }

  /**
   * Sends one message with the integration's decrypted credentials (the contract's `CredentialsDto`
   * fields). Resolves when the vendor accepted it; throws (preferably a {@link DeliveryError}) when it
   * did not. Must never log or return the credentials.
   */
  abstract send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult>;
}

function hasText(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}
