import { Injectable } from '@nestjs/common';
import type { IntegrationCredentials } from '../../integrations/integrations.service';
import { DeliveryError, type DeliveryMessage, DeliveryProvider, type DeliveryResult } from '../delivery-provider';
import { isTransientStatus, parseJson, pickString, type VendorFailure, vendorRequest } from '../vendor-http';
import { asRecord, CTA_LABEL, chatWebhookUrl, withOverrides } from './chat-vendor';

/** The Adaptive Card schema version sent: what Teams renders on every client, webhooks included. */
export const MSTEAMS_ADAPTIVE_CARD_VERSION = '1.2';

/**
 * What a Teams webhook gets by default: a message with one Adaptive Card attachment, the format both
 * channel incoming webhooks (Office 365 connectors) and Workflows ("when a Teams webhook request is
 * received") accept. @publicApi
 */
export interface MsTeamsWebhookBody {
  type: 'message';
  attachments: Array<{
    contentType: 'application/vnd.microsoft.card.adaptive';
    contentUrl: null;
    content: {
      $schema: 'http://adaptivecards.io/schemas/adaptive-card.json';
      type: 'AdaptiveCard';
      version: string;
      body: Array<{ type: 'TextBlock'; text: string; wrap: true }>;
      actions?: Array<{ type: 'Action.OpenUrl'; title: string; url: string }>;
    };
  }>;
}

/**
 * The connector's way of reporting a failure of Teams behind it: HTTP 200 with a text such as
 * `Webhook message delivery failed with error: Microsoft Teams endpoint returned HTTP error 429 with
 * ContextId ...` (the connector keeps 200 so that senders do not drop the webhook).
 */
const WRAPPED_FAILURE = /delivery failed|returned HTTP error|Exception/i;
const WRAPPED_STATUS = /returned HTTP error (\d{3})/i;

/**
 * Microsoft Teams through a channel incoming webhook or a Workflows webhook: `POST <the subscriber's
 * webhook URL>` (its `channels` setting for `msteams`, else the integration's
 * `credentials.webhookUrl`) with a JSON {@link MsTeamsWebhookBody}: an Adaptive Card with the content
 * in a wrapping `TextBlock` and, for a call to action, an `Action.OpenUrl` "Open" action. Content that
 * is itself a JSON object (a MessageCard or a `{ type: 'message', attachments }` card written in the
 * step) is sent as is. The URL is the only authentication (no credential is required); it is a secret
 * and never logged.
 *
 * Teams answers 200 `1` (incoming webhooks) or 202 with no body (Workflows) and gives no message id
 * (none is stored). A 2xx answer whose text reports a failure (`... returned HTTP error 429 ...`, the
 * connector's way) fails like that status would: 429 and 5xx transient, others permanent. Real 4xx
 * (400 `Bad payload received by generic incoming webhook.`, 404, 410) are permanent; 429 and 5xx
 * transient. The trigger's `overrides.providers.msteams` are spread over the top-level body (e.g. a
 * whole `attachments` array, or `summary`/`themeColor` for a MessageCard). Teams webhooks take no
 * idempotency key: a retry after a lost answer may post twice.
 * @publicApi
 */
@Injectable()
export class MsTeamsProvider extends DeliveryProvider {
  readonly providerId = 'msteams';
  readonly channel = 'chat';

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    const response = await vendorRequest(
      'Microsoft Teams',
      { url: chatWebhookUrl('Microsoft Teams', message, credentials), json: withOverrides(this.body(message), message.overrides), timeoutMs: message.timeoutMs },
      describeFailure,
    );
    const raw = { status: response.status, body: response.body };
    if (typeof response.body === 'string' && WRAPPED_FAILURE.test(response.body)) {
      const wrapped = Number(WRAPPED_STATUS.exec(response.body)?.[1]);
      const status = Number.isFinite(wrapped) ? wrapped : undefined;
      throw new DeliveryError(
        `Microsoft Teams responded with ${response.status}: ${response.body.trim().slice(0, 200)}`,
        raw,
        // An unspecified failure behind the connector is Teams' side: worth another try.
        { transient: status === undefined || isTransientStatus(status), code: status === undefined ? undefined : String(status) },
      );
    }
    return { raw };
  }

  private body(message: DeliveryMessage): object {
    const card = asRecord(message.content.trimStart().startsWith('{') ? parseJson(message.content.trim()) : undefined);
    if (card) return card;
    const body: MsTeamsWebhookBody = {
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          contentUrl: null,
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: MSTEAMS_ADAPTIVE_CARD_VERSION,
            body: [{ type: 'TextBlock', text: message.content, wrap: true }],
            ...(message.ctaUrl && { actions: [{ type: 'Action.OpenUrl' as const, title: CTA_LABEL, url: message.ctaUrl }] }),
          },
        },
      ],
    };
    return body;
  }
}

/** Teams answers errors as text (`Bad payload received by generic incoming webhook.`) or JSON (Workflows: `{ error: { code, message } }`). */
function describeFailure(body: unknown): VendorFailure | undefined {
  if (typeof body === 'string') return body.trim() ? { message: body.trim().slice(0, 200) } : undefined;
  const message = pickString(body, 'error', 'message') ?? pickString(body, 'message');
  const code = pickString(body, 'error', 'code') ?? pickString(body, 'code');
  return message || code ? { message: message ?? code, code } : undefined;
}
