import { Novu } from '@novu/api';
import request from 'supertest';
import {
  EXECUTION_DETAIL_SOURCES,
  EXECUTION_DETAIL_STATUSES,
  ExecutionDetailEntity,
  IntegrationEntity,
  JobEntity,
  MessageEntity,
  NotificationEntity,
  NotificationsDatabase,
  PROVIDER_IDS,
  SubscriberEntity,
  type WorkflowEntity,
} from '../../lib';
import { ADAPTERS, useTestApp } from '../fixtures/app';
import { createEnvironment, createIntegration, createSubscriber, type TestEnvironment } from '../fixtures/factories';
import { type CreatedNotification, createNotification, createWorkflow } from '../fixtures/notification.factory';

type JobBody = {
  _id: string;
  type: string;
  digest?: Record<string, unknown>;
  executionDetails: Array<Record<string, unknown>>;
  step: Record<string, unknown>;
  providerId: string;
  status: string;
};

describe.each(ADAPTERS)('GET /v1/notifications/{notificationId} (%s)', (adapter) => {
  const t = useTestApp(adapter);
  let envA: TestEnvironment;
  let envB: TestEnvironment;
  let subscriber: SubscriberEntity;
  let workflow: WorkflowEntity;
  let created: CreatedNotification;
  let ofEnvB: CreatedNotification;

  const path = (id: string) => `/v1/notifications/${id}`;
  const get = (id: string, env: TestEnvironment = envA) => request(t.server).get(path(id)).set(env.auth);

  beforeAll(async () => {
    envA = await createEnvironment(t.moduleRef, 'A');
    envB = await createEnvironment(t.moduleRef, 'B');
    await createIntegration(t.moduleRef, envA.environmentId, { identifier: 'sendgrid-a', primary: true });
    subscriber = await createSubscriber(t.moduleRef, envA.environmentId, { subscriberId: 'ada', firstName: 'Ada', email: 'ada@example.com' });
    workflow = await createWorkflow(t.moduleRef, envA.environmentId);
    created = await createNotification(t.moduleRef, envA.environmentId, { subscriber, workflow, payload: { orderId: 'ORD-7' } });

    const subscriberB = await createSubscriber(t.moduleRef, envB.environmentId, { subscriberId: 'ada' });
    const workflowB = await createWorkflow(t.moduleRef, envB.environmentId);
    ofEnvB = await createNotification(t.moduleRef, envB.environmentId, { subscriber: subscriberB, workflow: workflowB });
  });

  it('returns the notification with its subscriber, workflow, jobs and execution logs', async () => {
    const res = await get(created.notification.id).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.body;
    expect(body).toEqual(
      expect.objectContaining({
        _id: created.notification.id,
        _environmentId: envA.environmentId,
        _organizationId: envA.organizationId,
        _subscriberId: subscriber.id,
        transactionId: created.notification.transactionId,
        _templateId: workflow.id,
        createdAt: created.notification.createdAt.toISOString(),
        updatedAt: created.notification.updatedAt.toISOString(),
        channels: ['in_app', 'delay', 'digest', 'email'],
        payload: { orderId: 'ORD-7' },
        tags: ['orders'],
        to: { subscriberId: 'ada', email: 'ada@example.com' },
        critical: false,
      }),
    );
    // Optional, non-nullable fields that are unset are omitted, never null.
    expect(body).not.toHaveProperty('_digestedNotificationId');
    expect(body).not.toHaveProperty('controls');
    expect(body.subscriber).toEqual({ _id: subscriber.id, subscriberId: 'ada', firstName: 'Ada', email: 'ada@example.com' });
    expect(body.template).toEqual({
      _id: workflow.id,
      name: 'Order confirmed',
      triggers: [{ type: 'event', identifier: 'order-confirmed', variables: [] }],
    });

    const jobs = body.jobs as JobBody[];
    expect(jobs.map((job) => job.type)).toEqual(['in_app', 'delay', 'digest', 'email']);
    for (const job of jobs) {
      expect(job).toEqual(
        expect.objectContaining({
          _id: expect.stringMatching(/^[0-9a-f]{24}$/),
          type: expect.any(String),
          executionDetails: expect.any(Array),
          step: expect.objectContaining({ _id: expect.any(String), active: true, filters: expect.any(Array), _templateId: expect.any(String) }),
          providerId: expect.any(String),
          status: 'completed',
          payload: { orderId: 'ORD-7' },
          overrides: {},
          updatedAt: expect.any(String),
        }),
      );
      expect(PROVIDER_IDS).toContain(job.providerId);
      expect(job.executionDetails.length).toBeGreaterThan(0);
      for (const detail of job.executionDetails) {
        expect(detail).toEqual(
          expect.objectContaining({
            _id: expect.stringMatching(/^[0-9a-f]{24}$/),
            createdAt: expect.any(String),
            detail: expect.any(String),
            isRetry: false,
            isTest: false,
            source: 'Internal',
          }),
        );
        expect(EXECUTION_DETAIL_STATUSES).toContain(detail.status);
        expect(EXECUTION_DETAIL_SOURCES).toContain(detail.source);
        expect(detail.raw === null || typeof detail.raw === 'string').toBe(true);
        if ('providerId' in detail) expect(PROVIDER_IDS).toContain(detail.providerId);
      }
    }
    // Channel steps name their integration's provider; in-app and steps that send nothing name `novu`.
    expect(jobs.map((job) => job.providerId)).toEqual(['novu', 'novu', 'novu', 'sendgrid']);
    expect(jobs[0].executionDetails.map((d) => d.detail)).toEqual([
      'Step created',
      'Step queued',
      'Start sending message',
      'Message created',
      'Message sent',
    ]);
    expect(jobs[0].executionDetails.map((d) => d.status)).toEqual(['Pending', 'Pending', 'Pending', 'Pending', 'Success']);
    expect(jobs[3].executionDetails.at(-1)).toMatchObject({ detail: 'Message sent', status: 'Success', providerId: 'sendgrid' });
  });

  it('shows each job\'s step as snapshotted, chained to the step before it', async () => {
    const { body } = await get(created.notification.id).expect(200);
    const jobs = body.jobs as JobBody[];
    const steps = workflow.steps;
    jobs.forEach((job, index) => {
      expect(job.step).toMatchObject({ _id: steps[index]._id, _templateId: steps[index]._templateId, name: steps[index].name });
      expect(job.step._parentId).toBe(index === 0 ? null : steps[index - 1]._id);
    });
    expect(jobs[0].step.template).toMatchObject({ type: 'in_app', content: expect.stringContaining('{{ subscriber.firstName }}') });
    expect(jobs[1].step.metadata).toEqual({ type: 'regular', amount: 5, unit: 'minutes' });
    expect(jobs[3].step.filters).toEqual(steps[3].filters);
  });

  it('never lists the trigger job or its execution details', async () => {
    const { body } = await get(created.notification.id).expect(200);
    const triggerJob = created.jobs[0];
    expect(triggerJob.type).toBe('trigger');
    const jobs = body.jobs as JobBody[];
    expect(jobs.map((job) => job._id)).not.toContain(triggerJob.id);
    expect(jobs.some((job) => job.type === 'trigger')).toBe(false);
    const listed = jobs.flatMap((job) => job.executionDetails.map((d) => d._id));
    const expected = created.executionDetails.filter((d) => d.jobId !== triggerJob.id).map((d) => d.id);
    expect(listed).toEqual(expected);
  });

  it('lists jobs and execution details oldest first, whatever order they were written in', async () => {
    const scrambled = await createNotification(t.moduleRef, envA.environmentId, { subscriber, workflow, scrambled: true });
    // The ids sort the other way round from the timestamps: only ORDER BY created_at gives the run order.
    expect(scrambled.jobs[1].id > scrambled.jobs[2].id).toBe(true);
    const { body } = await get(scrambled.notification.id).expect(200);
    const jobs = body.jobs as JobBody[];
    expect(jobs.map((job) => job._id)).toEqual(scrambled.jobs.slice(1).map((job) => job.id));
    for (const job of jobs) {
      const expected = scrambled.executionDetails.filter((d) => d.jobId === job._id).map((d) => d.id);
      expect(job.executionDetails.map((d) => d._id)).toEqual(expected);
      const times = job.executionDetails.map((d) => Date.parse(d.createdAt as string));
      expect([...times].sort((a, b) => a - b)).toEqual(times);
    }
  });

  it('shows `digest` on digest jobs only, with the collected events', async () => {
    const { body } = await get(created.notification.id).expect(200);
    const jobs = body.jobs as JobBody[];
    const digestJob = jobs.find((job) => job.type === 'digest');
    expect(digestJob?.digest).toEqual({ type: 'regular', amount: 10, unit: 'minutes', digestKey: 'orderId', events: [{ orderId: 'ORD-7' }] });
    for (const job of jobs.filter((j) => j.type !== 'digest')) expect(job).not.toHaveProperty('digest');
  });

  it('keeps values outside the contract\'s enums away from clients', async () => {
    const odd = await createNotification(t.moduleRef, envA.environmentId, { subscriber, workflow });
    const database = t.moduleRef.get(NotificationsDatabase);
    const emailJob = odd.jobs.find((job) => job.type === 'email')!;
    const digestJob = odd.jobs.find((job) => job.type === 'digest')!;
    await database.query(`UPDATE ntf_job SET provider_id = 'legacy-provider' WHERE id = $1 AND environment_id = $2`, [emailJob.id, envA.environmentId]);
    await database.query(`UPDATE ntf_execution_detail SET provider_id = 'legacy-provider' WHERE job_id = $1 AND environment_id = $2`, [emailJob.id, envA.environmentId]);
    // A digest whose settings are not a digest type (events only, as copied onto later jobs) shows no digest.
    await database.query(`UPDATE ntf_job SET digest = '{"events": [{"a": 1}]}'::jsonb WHERE id = $1 AND environment_id = $2`, [digestJob.id, envA.environmentId]);
    const { body } = await get(odd.notification.id).expect(200);
    const jobs = body.jobs as JobBody[];
    const email = jobs.find((job) => job._id === emailJob.id)!;
    expect(email.providerId).toBe('novu');
    for (const detail of email.executionDetails) expect(detail).not.toHaveProperty('providerId');
    expect(jobs.find((job) => job._id === digestJob.id)).not.toHaveProperty('digest');
  });

  it('shows controls and the digesting notification when they are set', async () => {
    const digested = await createNotification(t.moduleRef, envA.environmentId, { subscriber, workflow, controls: { steps: { 'in-app': { body: 'Hi' } } } });
    await t.moduleRef
      .get(NotificationsDatabase)
      .query('UPDATE ntf_notification SET digested_notification_id = $1 WHERE id = $2 AND environment_id = $3', [
        created.notification.id,
        digested.notification.id,
        envA.environmentId,
      ]);
    const { body } = await get(digested.notification.id).expect(200);
    expect(body._digestedNotificationId).toBe(created.notification.id);
    expect(body.controls).toEqual({ steps: { 'in-app': { body: 'Hi' } } });
  });

  it('omits the subscriber and the workflow once they are gone', async () => {
    const orphanSubscriber = await createSubscriber(t.moduleRef, envA.environmentId, { subscriberId: 'gone', lastName: 'Lovelace', phone: '+15550100' });
    const orphanWorkflow = await createWorkflow(t.moduleRef, envA.environmentId, { identifier: 'short-lived', name: 'Short-lived' });
    const orphan = await createNotification(t.moduleRef, envA.environmentId, { subscriber: orphanSubscriber, workflow: orphanWorkflow });
    const before = await get(orphan.notification.id).expect(200);
    expect(before.body.subscriber).toEqual({ _id: orphanSubscriber.id, subscriberId: 'gone', lastName: 'Lovelace', phone: '+15550100' });

    const database = t.moduleRef.get(NotificationsDatabase);
    await database.query('DELETE FROM ntf_subscriber WHERE id = $1 AND environment_id = $2', [orphanSubscriber.id, envA.environmentId]);
    await database.query('DELETE FROM ntf_workflow WHERE id = $1 AND environment_id = $2', [orphanWorkflow.id, envA.environmentId]);
    const { body } = await get(orphan.notification.id).expect(200);
    expect(body).not.toHaveProperty('subscriber');
    expect(body).not.toHaveProperty('template');
    expect(body._subscriberId).toBe(orphanSubscriber.id);
    expect(body._templateId).toBe(orphanWorkflow.id);
    expect(body.jobs).toHaveLength(4);
  });

  it('accepts an id in upper case', async () => {
    const { body } = await get(created.notification.id.toUpperCase()).expect(200);
    expect(body._id).toBe(created.notification.id);
  });

  it('answers 404 for an unknown id', async () => {
    const unknown = 'a'.repeat(24);
    const res = await get(unknown).expect(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      statusCode: 404,
      message: 'Notification not found',
      error: 'Not Found',
      path: path(unknown),
      timestamp: expect.any(String),
    });
  });

  it('answers 404 for another environment\'s notification (tenant isolation)', async () => {
    const res = await get(ofEnvB.notification.id, envA).expect(404);
    expect(res.body.message).toBe('Notification not found');
    await get(created.notification.id, envB).expect(404);
    // The owner still sees it.
    await get(ofEnvB.notification.id, envB).expect(200);
  });

  it.each([
    ['too short', 'abc'],
    ['23 characters', 'a'.repeat(23)],
    ['25 characters', 'a'.repeat(25)],
    ['not hexadecimal', 'g'.repeat(24)],
    ['a SQL fragment', "'%20OR%201=1--"],
  ])('answers 422 for a malformed id (%s)', async (_case, id) => {
    const res = await get(id).expect(422);
    expect(res.body).toMatchObject({
      statusCode: 422,
      error: 'Unprocessable Entity',
      errors: { notificationId: { messages: ['notificationId must be a mongodb id'], value: decodeURIComponent(id) } },
    });
    expect(typeof res.body.timestamp).toBe('string');
  });

  it('answers 401 with the contract messages', async () => {
    const id = created.notification.id;
    const missing = await request(t.server).get(path(id)).expect(401);
    expect(missing.body).toMatchObject({ statusCode: 401, message: 'Missing authorization header', path: path(id) });
    const scheme = await request(t.server).get(path(id)).set('Authorization', 'Basic abc').expect(401);
    expect(scheme.body.message).toBe('Invalid authentication scheme: "Basic"');
    const unknown = await request(t.server).get(path(id)).set('Authorization', 'ApiKey nope').expect(401);
    expect(unknown.body.message).toBe('API Key not found');
    // Authentication comes before validation: a malformed id without a key is still a 401.
    await request(t.server).get(path('abc')).expect(401);
  });

  it('reads rows into the same entities as em.map (the read path skips only the identity map)', async () => {
    const database = t.moduleRef.get(NotificationsDatabase);
    const tables = [
      [NotificationEntity, 'ntf_notification'],
      [JobEntity, 'ntf_job'],
      [ExecutionDetailEntity, 'ntf_execution_detail'],
      [MessageEntity, 'ntf_message'],
      [SubscriberEntity, 'ntf_subscriber'],
      [IntegrationEntity, 'ntf_integration'],
    ] as const;
    for (const [entity, table] of tables) {
      const { rows } = await database.query(`SELECT * FROM ${table} WHERE environment_id = $1 ORDER BY created_at, id`, [envA.environmentId]);
      expect(rows.length).toBeGreaterThan(0);
      const read = database.read<object>(entity, rows);
      const em = database.fork();
      const mapped = rows.map((row) => em.map(entity as new () => object, row));
      const props = t.orm.getMetadata().get(entity.name).props.map((prop) => prop.name as string);
      const pick = (e: object) => Object.fromEntries(props.map((name) => [name, (e as Record<string, unknown>)[name]]));
      expect(read.map(pick)).toEqual(mapped.map(pick));
      expect(read[0]).toBeInstanceOf(entity);
      expect((read[0] as { createdAt: unknown }).createdAt).toBeInstanceOf(Date);
    }
  });

  it('is parsed by the official SDK (`notifications.retrieve`)', async () => {
    await t.app.listen(0, '127.0.0.1');
    const novu = new Novu({ secretKey: envA.apiKey, serverURL: await t.app.getUrl() });
    const { result } = await novu.notifications.retrieve(created.notification.id);
    expect(result.id).toBe(created.notification.id);
    expect(result.subscriber?.subscriberId).toBe('ada');
    expect(result.template?.triggers[0].identifier).toBe('order-confirmed');
    expect(result.jobs?.map((job) => job.type)).toEqual(['in_app', 'delay', 'digest', 'email']);
    expect(result.jobs?.[2].digest?.events).toEqual([{ orderId: 'ORD-7' }]);
  });
});
