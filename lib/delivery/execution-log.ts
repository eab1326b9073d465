import type { ExecutionDetailSource, ExecutionDetailStatus } from '../common/enums';

/**
 * The texts of the execution log. Those the reference service writes are kept word for word
 * (reference/behavior.md §8), so dashboards and alerts written against it keep matching.
 */
export const DETAILS = {
  stepCreated: 'Step created',
  stepQueued: 'Step queued',
  startSending: 'Start sending message',
  messageCreated: 'Message created',
  messageSent: 'Message sent',
  integrationSelected: 'Integration instance selected',
  noIntegration: 'Subscriber does not have an active integration',
  missingRecipient: 'Subscriber missing recipient details',
  missingWebhookUrl: 'Webhook URL for the chat channel is missing',
  missingDeviceTokens: 'Subscriber credentials is missing the tokens for sending a push notification message',
  contentNotGenerated: 'Message content could not be generated',
  providerError: 'Unexpected provider error',
  // Ours: the reference retries silently; here a transient failure says when the next try is.
  providerRetryScheduled: 'Provider error, the send will be retried',
  filtered: 'Step was filtered based on steps filters',
  filteredByWorkflowPreferences: 'Step filtered by workflow preferences',
  stepDelayed: 'Step delayed',
  delayFinished: 'Delay is finished',
  invalidDelay: 'Invalid delay configuration',
  stepDigested: 'Step digested',
  startDigesting: 'Start digesting',
  digestTriggered: 'Digest triggered events',
  digestMerged: 'Digest was merged with other digest',
  digestSkippedBackoff: 'Digest was skipped, first backoff event',
  invalidDigest: 'Invalid digest configuration',
  // The reference has no throttle, custom or HTTP texts of its own: ours follow its wording.
  invalidThrottle: 'Invalid throttle configuration',
  throttlePassed: 'Step passed the throttle',
  throttled: 'Step was throttled, the limit of the window is reached',
  customCompleted: 'Custom step completed',
  customFailed: 'Custom step failed',
  customHandlerMissing: 'Custom step has no handler',
  httpRequestCompleted: 'HTTP request completed',
  httpRequestFailed: 'HTTP request failed',
} as const;

/** One line of a job's execution log, before it is written. */
export interface DetailDraft {
  detail: string;
  status: ExecutionDetailStatus;
  source?: ExecutionDetailSource;
  providerId?: string | null;
  messageId?: string | null;
  /** A line of a retry of the job (the queue's retry of a transient send failure). */
  isRetry?: boolean;
  /** Stored as JSON text (the contract's `raw` is a string). */
  raw?: unknown;
}

/** Shorthands for the log lines steps write. */
export const line = {
  pending: (detail: string, extra: Omit<DetailDraft, 'detail' | 'status'> = {}): DetailDraft => ({ detail, status: 'Pending', ...extra }),
  success: (detail: string, extra: Omit<DetailDraft, 'detail' | 'status'> = {}): DetailDraft => ({ detail, status: 'Success', ...extra }),
  failed: (detail: string, extra: Omit<DetailDraft, 'detail' | 'status'> = {}): DetailDraft => ({ detail, status: 'Failed', ...extra }),
  warning: (detail: string, extra: Omit<DetailDraft, 'detail' | 'status'> = {}): DetailDraft => ({ detail, status: 'Warning', ...extra }),
};
