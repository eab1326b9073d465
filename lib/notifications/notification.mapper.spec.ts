import type { ExecutionDetailEntity } from './execution-detail.entity';
import type { JobEntity } from './job.entity';
import { toActivityNotificationResponse } from './notification.mapper';
import type { NotificationEntity } from './notification.entity';
import type { NotificationActivity } from './notifications.service';

const at = new Date('2026-11-21T10:00:00.000Z');

function notification(overrides: Partial<NotificationEntity> = {}): NotificationEntity {
  return {
    id: 'n'.repeat(24),
    environmentId: 'e'.repeat(24),
    organizationId: 'o'.repeat(24),
    subscriberId: 's'.repeat(24),
    workflowId: 'w'.repeat(24),
    transactionId: 'txn_1',
    digestedNotificationId: null,
    channels: ['digest'],
    payload: {},
    to: { subscriberId: 'ada' },
    tags: [],
    controls: null,
    tenant: null,
    actor: null,
    context: null,
    critical: false,
    expireAt: null,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  } as NotificationEntity;
}

function job(overrides: Partial<JobEntity> = {}): JobEntity {
  return {
    id: 'j'.repeat(24),
    notificationId: 'n'.repeat(24),
    parentId: null,
    type: 'digest',
    status: 'delayed',
    step: { _id: 'step1', _templateId: 'tpl1', type: 'digest', active: true, shouldStopOnFail: false, filters: [] },
    digest: null,
    payload: {},
    overrides: {},
    providerId: 'novu',
    createdAt: at,
    updatedAt: at,
    ...overrides,
  } as JobEntity;
}

function activity(jobs: JobEntity[], overrides: Partial<NotificationActivity> = {}): NotificationActivity {
  return { notification: notification(), subscriber: null, workflow: null, jobs, executionDetails: [], ...overrides };
}

describe('toActivityNotificationResponse', () => {
  it('shows regular and backoff digests with only the contract\'s values, events defaulting to []', () => {
    const [response] = toActivityNotificationResponse(
      activity([job({ digest: { type: 'backoff', amount: 5, unit: 'fortnights' as never, backoff: true, backoffAmount: 1, backoffUnit: 'minutes', updateMode: false } })]),
    ).jobs!;
    expect(response.digest).toEqual({ type: 'backoff', amount: 5, events: [], backoff: true, backoffAmount: 1, backoffUnit: 'minutes', updateMode: false });
  });

  it('shows a timed digest\'s schedule, dropping values outside the contract\'s enums', () => {
    const timed = { atTime: '09:00', weekDays: ['monday', 'funday'], monthDays: [1, 'x' as never], ordinal: '9' as never, ordinalValue: 'weekday', monthlyType: 'on' as const };
    const [response] = toActivityNotificationResponse(activity([job({ digest: { type: 'timed', timed } })])).jobs!;
    expect(response.digest).toEqual({
      type: 'timed',
      events: [],
      timed: { atTime: '09:00', weekDays: ['monday'], monthDays: [1], ordinalValue: 'weekday', monthlyType: 'on' },
    });
  });

  it('shows no digest for settings that are not a digest type', () => {
    const jobs = toActivityNotificationResponse(
      activity([job({ digest: { events: [{ a: 1 }] } }), job({ id: 'k'.repeat(24), digest: { type: 'scheduled' } })]),
    ).jobs!;
    for (const response of jobs) expect(response).not.toHaveProperty('digest');
  });

  it('lists execution details under their job, never the details of an unlisted job', () => {
    const detail = (id: string, jobId: string) =>
      ({ id, jobId, createdAt: at, status: 'Pending', detail: 'Step queued', isRetry: false, isTest: false, providerId: null, raw: null, source: 'Internal' }) as ExecutionDetailEntity;
    const response = toActivityNotificationResponse(
      activity([job()], { executionDetails: [detail('d1', 'j'.repeat(24)), detail('d2', 'trigger-job'), detail('d3', 'j'.repeat(24))] }),
    );
    expect(response.jobs![0].executionDetails.map((d) => d._id)).toEqual(['d1', 'd3']);
    expect(response.jobs![0].executionDetails[0]).not.toHaveProperty('providerId');
  });

  it('derives contextKeys from the context, sorted', () => {
    const response = toActivityNotificationResponse(activity([], { notification: notification({ context: { tenant: 'acme', region: { id: 'eu' }, bad: 3 } }) }));
    expect(response.contextKeys).toEqual(['region:eu', 'tenant:acme']);
    expect(toActivityNotificationResponse(activity([]))).not.toHaveProperty('contextKeys');
  });
});
