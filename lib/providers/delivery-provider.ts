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
}

/** What a vendor answered to a successful send. */
export interface DeliveryResult {
  /** The vendor's id for the message, when it gives one. */
  id?: string;
  /** The vendor's answer, recorded in the `Message sent` execution detail. */
  raw?: unknown;
}

/**
 * A vendor rejected or failed a send. The worker records `message` and `raw` in the failed execution
 * detail and on the message; anything else a provider throws is recorded the same way.
 * @publicApi
 */
export class DeliveryError extends Error {
  constructor(
    message: string,
    /** What the vendor answered (status, body), safe to store: never credentials. */
    readonly raw?: unknown,
  ) {
    super(message);
    this.name = 'DeliveryError';
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
   * Sends one message with the integration's decrypted credentials (the contract's `CredentialsDto`
   * fields). Resolves when the vendor accepted it; throws (preferably a {@link DeliveryError}) when it
   * did not. Must never log or return the credentials.
   */
  abstract send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult>;
}
