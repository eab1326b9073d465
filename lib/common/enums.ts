/**
 * The closed value lists of the contract (reference/openapi-subset.json). The SDK rejects any value
 * outside them, so every enum the API emits or accepts comes from here.
 */

/** Delivery channels (`ChannelTypeEnum`). */
export const CHANNEL_TYPES = ['in_app', 'email', 'sms', 'chat', 'push'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** Workflow step types (`StepTypeEnum`). `trigger` is the synthetic first job of every chain. */
export const STEP_TYPES = [
  'in_app', 'email', 'sms', 'chat', 'push', 'digest', 'trigger', 'delay', 'throttle', 'custom', 'http_request',
] as const;
export type StepType = (typeof STEP_TYPES)[number];

/** Every provider id of the contract (`ProvidersIdEnum`). */
export const PROVIDER_IDS = [
  'anypost', 'emailjs', 'mailgun', 'mailjet', 'mandrill', 'nodemailer', 'postmark', 'sendgrid', 'sendinblue', 'ses',
  'netcore', 'infobip-email', 'resend', 'plunk', 'mailersend', 'mailtrap', 'clickatell', 'outlook365', 'novu-email',
  'sparkpost', 'email-webhook', 'braze', 'novu-email-agent', 'nexmo', 'plivo', 'sms77', 'sms-central', 'sns', 'telnyx',
  'twilio', 'gupshup', 'firetext', 'infobip-sms', 'burst-sms', 'bulk-sms', 'isend-sms', 'forty-six-elks', 'kannel',
  'maqsam', 'termii', 'africas-talking', 'novu-sms', 'sendchamp', 'generic-sms', 'clicksend', 'bandwidth',
  'messagebird', 'simpletexting', 'azure-sms', 'ring-central', 'brevo-sms', 'eazy-sms', 'mobishastra',
  'afro-message', 'unifonic', 'smsmode', 'imedia', 'sinch', 'isendpro-sms', 'cm-telecom', 'fcm', 'apns', 'expo',
  'one-signal', 'pushpad', 'push-webhook', 'pusher-beams', 'appio', 'novu', 'slack', 'discord', 'msteams',
  'webex-messaging', 'mattermost', 'ryver', 'zulip', 'grafana-on-call', 'getstream', 'rocket-chat',
  'whatsapp-business', 'line', 'chat-webhook', 'novu-slack', 'telegram', 'sendblue', 'anthropic', 'novu-anthropic',
  'anthropic-aws',
] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** Chat and push providers, the only ones a subscriber's `channels[]` may name (`ChatOrPushProviderEnum`). */
export const CHAT_OR_PUSH_PROVIDER_IDS = [
  'slack', 'discord', 'msteams', 'webex-messaging', 'mattermost', 'ryver', 'zulip', 'grafana-on-call', 'getstream',
  'rocket-chat', 'whatsapp-business', 'line', 'chat-webhook', 'novu-slack', 'telegram', 'sendblue', 'fcm', 'apns',
  'expo', 'one-signal', 'pushpad', 'push-webhook', 'pusher-beams', 'appio',
] as const;
export type ChatOrPushProviderId = (typeof CHAT_OR_PUSH_PROVIDER_IDS)[number];

/** The in-house provider id: in-app delivery and steps that send nothing carry it (DESIGN §7). */
export const IN_HOUSE_PROVIDER_ID: ProviderId = 'novu';

/** Message delivery states (`MessageStatusEnum`). */
export const MESSAGE_STATUSES = ['sent', 'error', 'warning'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** What `mark-as` can do (`MessageMarkAsRequestDto.markAs`). */
export const MARK_AS_VALUES = ['read', 'seen', 'unread', 'unseen'] as const;
export type MarkAs = (typeof MARK_AS_VALUES)[number];

/** Execution detail states (`ExecutionDetailsStatusEnum`). */
export const EXECUTION_DETAIL_STATUSES = ['Success', 'Warning', 'Failed', 'Pending', 'Queued', 'ReadConfirmation'] as const;
export type ExecutionDetailStatus = (typeof EXECUTION_DETAIL_STATUSES)[number];

/** Where an execution detail comes from (`ExecutionDetailsSourceEnum`). */
export const EXECUTION_DETAIL_SOURCES = ['Credentials', 'Internal', 'Payload', 'Webhook'] as const;
export type ExecutionDetailSource = (typeof EXECUTION_DETAIL_SOURCES)[number];

/** Job lifecycle states (reference/behavior.md §8). */
export const JOB_STATUSES = [
  'pending', 'queued', 'running', 'completed', 'failed', 'delayed', 'canceled', 'merged', 'skipped',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Integration kinds. Agent integrations have no channel. */
export const INTEGRATION_KINDS = ['delivery', 'agent'] as const;
export type IntegrationKind = (typeof INTEGRATION_KINDS)[number];

/** Step filter enums (`StepFilterDto`, `FieldFilterPartDto`). */
export const FILTER_TYPES = ['BOOLEAN', 'TEXT', 'DATE', 'NUMBER', 'STATEMENT', 'LIST', 'MULTI_LIST', 'GROUP'] as const;
export const FILTER_VALUES = ['AND', 'OR'] as const;
export const FILTER_OPERATORS = [
  'LARGER', 'SMALLER', 'LARGER_EQUAL', 'SMALLER_EQUAL', 'EQUAL', 'NOT_EQUAL', 'ALL_IN', 'ANY_IN', 'NOT_IN', 'BETWEEN',
  'NOT_BETWEEN', 'LIKE', 'NOT_LIKE', 'IN',
] as const;
export const FILTER_ON = ['subscriber', 'payload'] as const;

/** Time units of digests and delays (`DigestUnitEnum`). */
export const TIME_UNITS = ['seconds', 'minutes', 'hours', 'days', 'weeks', 'months'] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];

/** Digest kinds (`DigestTypeEnum`). */
export const DIGEST_TYPES = ['regular', 'backoff', 'timed'] as const;

/** Days a timed digest may fire on (`DigestTimedConfigDto.weekDays`). */
export const WEEK_DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
/** Which occurrence in the month a timed digest fires on (`OrdinalEnum`). */
export const ORDINALS = ['1', '2', '3', '4', '5', 'last'] as const;
/** What the ordinal of a timed digest counts (`OrdinalValueEnum`). */
export const ORDINAL_VALUES = ['day', 'weekday', 'weekend', 'sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
/** How a monthly timed digest picks its days (`MonthlyTypeEnum`). */
export const MONTHLY_TYPES = ['each', 'on'] as const;
