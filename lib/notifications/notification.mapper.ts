import {
  DIGEST_TYPES,
  IN_HOUSE_PROVIDER_ID,
  MONTHLY_TYPES,
  ORDINAL_VALUES,
  ORDINALS,
  PROVIDER_IDS,
  type ProviderId,
  STEP_TYPES,
  TIME_UNITS,
  type TimeUnit,
  WEEK_DAYS,
} from '../common/enums';
import type { StepMetadata } from '../workflows/workflow-definition';
import type {
  ActivityNotificationExecutionDetailResponseDto,
  ActivityNotificationJobResponseDto,
  ActivityNotificationStepResponseDto,
} from './dto/activity-notification-job.dto';
import type { ActivityNotificationResponseDto, ActivityNotificationSubscriberResponseDto } from './dto/activity-notification-response.dto';
import type { DigestMetadataDto, DigestTimedConfigDto } from './dto/digest-metadata.dto';
import type { ExecutionDetailEntity } from './execution-detail.entity';
import type { JobEntity } from './job.entity';
import type { NotificationActivity, NotificationSubscriberSummary } from './notifications.service';

// Every enum value we emit is checked against the contract's list: the official SDK rejects a whole
// response over one unknown value, so a stray value in the database must never reach a client.
const PROVIDERS = new Set<string>(PROVIDER_IDS);
const STEPS = new Set<string>(STEP_TYPES);
const UNITS = new Set<string>(TIME_UNITS);

/**
 * `NotificationActivity` → `ActivityNotificationResponseDto`. Optional fields the contract does not
 * allow to be null are omitted when unset; the subscriber and the workflow are omitted when they no
 * longer exist.
 */
export function toActivityNotificationResponse(activity: NotificationActivity): ActivityNotificationResponseDto {
  const { notification, subscriber, workflow } = activity;
  const detailsByJob = new Map<string, ActivityNotificationExecutionDetailResponseDto[]>();
  for (const detail of activity.executionDetails) {
    const list = detailsByJob.get(detail.jobId);
    if (list) list.push(toExecutionDetailResponse(detail));
    else detailsByJob.set(detail.jobId, [toExecutionDetailResponse(detail)]);
  }
  const stepIdByJob = new Map(activity.jobs.map((job) => [job.id, job.step._id]));
  return {
    _id: notification.id,
    _environmentId: notification.environmentId,
    _organizationId: notification.organizationId,
    _subscriberId: notification.subscriberId,
    transactionId: notification.transactionId,
    _templateId: notification.workflowId,
    ...(notification.digestedNotificationId && { _digestedNotificationId: notification.digestedNotificationId }),
    createdAt: notification.createdAt.toISOString(),
    updatedAt: notification.updatedAt.toISOString(),
    channels: notification.channels.filter((channel) => channel !== 'trigger' && STEPS.has(channel)),
    ...(subscriber && { subscriber: toSubscriberSummary(subscriber) }),
    ...(workflow && {
      template: { _id: workflow.id, name: workflow.name, triggers: [{ type: 'event' as const, identifier: workflow.identifier, variables: [] }] },
    }),
    jobs: activity.jobs.map((job) =>
      // A job whose parent is not listed follows the trigger job: it runs the workflow's first step.
      toJobResponse(job, detailsByJob.get(job.id) ?? [], (job.parentId && stepIdByJob.get(job.parentId)) || null),
    ),
    payload: notification.payload,
    tags: notification.tags,
    ...(notification.controls && { controls: notification.controls }),
    to: notification.to,
    critical: notification.critical,
    ...(notification.context && { contextKeys: toContextKeys(notification.context) }),
  };
}

function toSubscriberSummary(subscriber: NotificationSubscriberSummary): ActivityNotificationSubscriberResponseDto {
  return {
    _id: subscriber.id,
    subscriberId: subscriber.subscriberId,
    ...(subscriber.firstName !== null && { firstName: subscriber.firstName }),
    ...(subscriber.lastName !== null && { lastName: subscriber.lastName }),
    ...(subscriber.email !== null && { email: subscriber.email }),
    ...(subscriber.phone !== null && { phone: subscriber.phone }),
  };
}

function toJobResponse(
  job: JobEntity,
  executionDetails: ActivityNotificationExecutionDetailResponseDto[],
  parentStepId: string | null,
): ActivityNotificationJobResponseDto {
  const digest = toDigestResponse(job.digest);
  return {
    _id: job.id,
    type: job.type,
    ...(digest && { digest }),
    executionDetails,
    step: toStepResponse(job, parentStepId),
    overrides: job.overrides,
    payload: job.payload,
    // Required and closed in the contract: a job always names a provider the SDK knows (DESIGN §7).
    providerId: PROVIDERS.has(job.providerId) ? (job.providerId as ProviderId) : IN_HOUSE_PROVIDER_ID,
    status: job.status,
    updatedAt: job.updatedAt.toISOString(),
  };
}

function toStepResponse(job: JobEntity, parentStepId: string | null): ActivityNotificationStepResponseDto {
  const step = job.step as Partial<JobEntity['step']> & { name?: string; metadata?: StepMetadata; template?: Record<string, unknown> };
  return {
    _id: step._id ?? '',
    active: step.active ?? false,
    filters: step.filters ?? [],
    _templateId: step._templateId ?? '',
    ...(typeof step.name === 'string' && { name: step.name }),
    _parentId: parentStepId,
    ...(step.metadata && { metadata: step.metadata }),
    ...(step.template && { template: { type: job.type, ...step.template } }),
  };
}

function toExecutionDetailResponse(detail: ExecutionDetailEntity): ActivityNotificationExecutionDetailResponseDto {
  return {
    _id: detail.id,
    createdAt: detail.createdAt.toISOString(),
    status: detail.status,
    detail: detail.detail,
    isRetry: detail.isRetry,
    isTest: detail.isTest,
    // Optional but closed: a line naming a provider outside the contract's list does not name it.
    ...(detail.providerId && PROVIDERS.has(detail.providerId) && { providerId: detail.providerId as ProviderId }),
    raw: detail.raw,
    source: detail.source,
  };
}

/** Only real digest settings are shown; a job that merely carries collected events shows none (as the reference does). */
function toDigestResponse(digest: JobEntity['digest']): DigestMetadataDto | undefined {
  if (!digest || !(DIGEST_TYPES as readonly unknown[]).includes(digest.type)) return undefined;
  const timed = digest.type === 'timed' && digest.timed ? toTimedResponse(digest.timed) : undefined;
  return {
    type: digest.type as DigestMetadataDto['type'],
    ...(typeof digest.digestKey === 'string' && { digestKey: digest.digestKey }),
    ...(typeof digest.amount === 'number' && { amount: digest.amount }),
    ...(typeof digest.unit === 'string' && UNITS.has(digest.unit) && { unit: digest.unit as TimeUnit }),
    events: Array.isArray(digest.events) ? digest.events : [],
    ...(typeof digest.backoff === 'boolean' && { backoff: digest.backoff }),
    ...(typeof digest.backoffAmount === 'number' && { backoffAmount: digest.backoffAmount }),
    ...(typeof digest.backoffUnit === 'string' && UNITS.has(digest.backoffUnit) && { backoffUnit: digest.backoffUnit as TimeUnit }),
    ...(typeof digest.updateMode === 'boolean' && { updateMode: digest.updateMode }),
    ...(timed && { timed }),
  };
}

function toTimedResponse(timed: NonNullable<StepMetadata['timed']>): DigestTimedConfigDto {
  const oneOf = <T extends string>(values: readonly T[], value: unknown): value is T => values.includes(value as T);
  return {
    ...(typeof timed.atTime === 'string' && { atTime: timed.atTime }),
    ...(Array.isArray(timed.weekDays) && { weekDays: timed.weekDays.filter((day) => oneOf(WEEK_DAYS, day)) as DigestTimedConfigDto['weekDays'] }),
    ...(Array.isArray(timed.monthDays) && { monthDays: timed.monthDays.filter((day) => typeof day === 'number') }),
    ...(oneOf(ORDINALS, timed.ordinal) && { ordinal: timed.ordinal }),
    ...(oneOf(ORDINAL_VALUES, timed.ordinalValue) && { ordinalValue: timed.ordinalValue }),
    ...(oneOf(MONTHLY_TYPES, timed.monthlyType) && { monthlyType: timed.monthlyType }),
    ...(typeof timed.cronExpression === 'string' && { cronExpression: timed.cronExpression }),
  };
}

/** `{ tenant: 'acme', region: { id: 'eu' } }` → `['region:eu', 'tenant:acme']`. */
function toContextKeys(context: Record<string, unknown>): string[] {
  const keys: string[] = [];
  for (const [type, value] of Object.entries(context)) {
    const id = typeof value === 'string' ? value : (value as { id?: unknown } | null)?.id;
    if (typeof id === 'string') keys.push(`${type}:${id}`);
  }
  return keys.sort();
}

