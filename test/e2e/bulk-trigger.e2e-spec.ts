import type { AddressInfo } from 'node:net';
import { Novu } from '@novu/api';
import { TriggerEventResponseDto$inboundSchema } from '@novu/api/models/components';
import request from 'supertest';
import {
  EventsService,
  NotificationsDatabase,
  RequestValidationException,
  type TenantEntity,
  TenantsService,
  type WorkflowEntity,
} from '../../lib';
import { ADAPTERS, useTestApp } from '../fixtures/app';
import { createEnvironment, createIntegration, createSubscriber, type TestEnvironment } from '../fixtures/factories';
import { createWorkflow } from '../fixtures/notification.factory';
import { statementsDuring } from '../fixtures/statements';

const BULK = '/v1/events/trigger/bulk';
const DUPLICATE = 'transactionId property is not unique, please make sure all triggers have a unique transactionId';
const TXN = /^txn_[0-9a-f]{24}$/;
const ID = /^[0-9a-f]{24}$/;

type Row = Record<string, unknown>;

/** Checks one result item against the SDK's own (strict) schema. */
function expectResponseShape(item: Record<string, unknown>): void {
  const parsed = TriggerEventResponseDto$inboundSchema.safeParse(item);
  expect(parsed.error?.issues ?? []).toEqual([]);
  expect(item.acknowledged).toBe(true);
  for (const key of ['error', 'transactionId', 'activityFeedLink', 'jobData']) if (key in item) expect(item[key]).not.toBeNull();
}

/** A statement's first words, enough to tell the statements of the intake apart. */
function kindOf(text: string): string {
  const sql = text.replace(/\s+/g, ' ').trim();
  const known: Array<[RegExp, string]> = [
    [/^BEGIN/i, 'BEGIN'],
    [/^COMMIT/i, 'COMMIT'],
    [/FROM ntf_workflow/, 'select workflows'],
    [/FROM ntf_tenant WHERE/, 'select tenants'],
    [/FROM ntf_integration/, 'select integrations'],
    [/pg_advisory_xact_lock/, 'lock transactionIds'],
    [/FROM ntf_notification WHERE/, 'check transactionIds'],
    [/INSERT INTO ntf_subscriber/, 'upsert subscribers'],
    [/UPDATE ntf_tenant/, 'update tenants'],
    [/INSERT INTO ntf_notification/, 'insert notifications'],
    // Jobs and their `Step created` lines are one statement (the lines join the jobs it returns).
    [/INSERT INTO ntf_job[\s\S]*INSERT INTO ntf_execution_detail/, 'insert jobs and execution details'],
    [/INSERT INTO "?pgboss"?\.job/i, 'enqueue'],
  ];
  return known.find(([pattern]) => pattern.test(sql))?.[1] ?? sql.slice(0, 80);
}

describe.each(ADAPTERS)('POST /v1/events/trigger/bulk (%s)', (adapter) => {
  // The worker stays off: the rows must stay exactly as the intake wrote them.
  const t = useTestApp(adapter, { options: { worker: { enabled: false } } });
  let envA: TestEnvironment;
  let envB: TestEnvironment;
  let sql: NotificationsDatabase;
  let orderConfirmed: WorkflowEntity;
  let multi: WorkflowEntity;

  const trigger = (env: TestEnvironment, events: unknown, headers: Record<string, string> = {}) =>
    request(t.server).post(BULK).set(env.auth).set(headers).send({ events } as object);
  const rows = async (text: string, values: unknown[]) => (await sql.query<Row>(text, values)).rows;
  const notificationsOf = (env: TestEnvironment, transactionId: string) =>
    rows('SELECT * FROM ntf_notification WHERE environment_id = $1 AND transaction_id = $2 ORDER BY created_at, id', [env.environmentId, transactionId]);
  const subscriberOf = async (env: TestEnvironment, subscriberId: string) =>
    (await rows('SELECT * FROM ntf_subscriber WHERE environment_id = $1 AND subscriber_id = $2', [env.environmentId, subscriberId]))[0];
  const createTenant = (env: TestEnvironment, identifier: string, name?: string, data?: Record<string, unknown>): Promise<TenantEntity> =>
    t.moduleRef.get(TenantsService).create(env.environmentId, { identifier, name, data });

  beforeAll(async () => {
    sql = t.moduleRef.get(NotificationsDatabase);
    envA = await createEnvironment(t.moduleRef, 'A');
    envB = await createEnvironment(t.moduleRef, 'B');
    // Integrations of A: email has a primary, SMS only non-primary ones, push only an inactive one, chat none.
    await createIntegration(t.moduleRef, envA.environmentId, { identifier: 'mailgun-eu', name: 'Mailgun', providerId: 'mailgun', channel: 'email' });
    await createIntegration(t.moduleRef, envA.environmentId, { identifier: 'sendgrid-main', providerId: 'sendgrid', channel: 'email', primary: true });
    await createIntegration(t.moduleRef, envA.environmentId, { identifier: 'ses-off', name: 'SES', providerId: 'ses', channel: 'email', active: false });
    await createIntegration(t.moduleRef, envA.environmentId, { identifier: 'twilio-old', name: 'Twilio', providerId: 'twilio', channel: 'sms' });
    await createIntegration(t.moduleRef, envA.environmentId, { identifier: 'nexmo-new', name: 'Nexmo', providerId: 'nexmo', channel: 'sms' });
    await createIntegration(t.moduleRef, envA.environmentId, { identifier: 'fcm-off', name: 'FCM', providerId: 'fcm', channel: 'push', active: false });

    orderConfirmed = await createWorkflow(t.app, envA.environmentId);
    await createWorkflow(t.app, envA.environmentId, { identifier: 'welcome', name: 'Welcome', steps: [{ type: 'in_app', template: { content: 'Hi' } }] });
    await createWorkflow(t.app, envA.environmentId, { identifier: 'inactive', name: 'Inactive', active: false, steps: [{ type: 'in_app' }] });
    await createWorkflow(t.app, envA.environmentId, { identifier: 'empty', name: 'Empty', steps: [] });
    await createWorkflow(t.app, envA.environmentId, { identifier: 'dormant', name: 'Dormant', steps: [{ type: 'in_app', active: false }] });
    multi = await createWorkflow(t.app, envA.environmentId, {
      identifier: 'multi',
      name: 'Every kind',
      critical: true,
      tags: ['a', 'b'],
      steps: [
        { type: 'in_app', active: false },
        { type: 'email', integrationIdentifier: 'mailgun-eu', template: { subject: 'Hi', content: 'Hi' } },
        { type: 'sms', template: { content: 'Hi' } },
        { type: 'chat', template: { content: 'Hi' } },
        { type: 'push', template: { title: 'Hi', content: 'Hi' } },
        { type: 'throttle', metadata: { threshold: 1, amount: 1, unit: 'hours', throttleKey: 'user.id' } },
        { type: 'digest', metadata: { type: 'regular', amount: 1, unit: 'minutes' } },
        { type: 'custom' },
        { type: 'email', integrationIdentifier: 'ses-off' },
      ],
    });
    await createWorkflow(t.app, envB.environmentId, { identifier: 'only-in-b', name: 'B', steps: [{ type: 'in_app' }] });
  });

  describe('success', () => {
    it('answers 201 with one processed result in the contract shape', async () => {
      const res = await trigger(envA, [{ name: 'welcome', to: 'shape-ada' }]).expect(201);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toHaveLength(1);
      expectResponseShape(res.body[0]);
      expect(res.body[0]).toEqual({ acknowledged: true, status: 'processed', transactionId: expect.stringMatching(TXN) });
      expect(await notificationsOf(envA, res.body[0].transactionId)).toHaveLength(1);
    });

    it('answers every status, in the order of the request, echoing the transactionId', async () => {
      await createTenant(envA, 'order-tenant');
      const events = [
        { name: 'welcome', to: 'order-1', transactionId: 'order-t1' },
        { name: 'nope', to: 'order-1', transactionId: 'order-t2' },
        { to: 'order-1', transactionId: 'order-t3' },
        { name: 'welcome', to: 'order-1', tenant: 'no-such-tenant', transactionId: 'order-t4' },
        { name: 'inactive', to: 'order-1', transactionId: 'order-t5' },
        { name: 'empty', to: 'order-1', transactionId: 'order-t6' },
        { name: 'dormant', to: 'order-1', transactionId: 'order-t7' },
        { name: 'welcome', to: [], transactionId: 'order-t8' },
        { name: 'welcome', to: [{ type: 'Topic', topicKey: 'news' }, '  ', { firstName: 'no id' }, 42, null], transactionId: 'order-t9' },
        { name: 'welcome', to: 'order-2', tenant: { identifier: 'order-tenant' }, transactionId: 'order-t10' },
        { name: 'welcome', to: 'order-3' },
      ];
      const res = await trigger(envA, events).expect(201);
      res.body.forEach(expectResponseShape);
      expect(res.body).toEqual([
        { acknowledged: true, status: 'processed', transactionId: 'order-t1' },
        { acknowledged: true, status: 'error', error: ['workflow_not_found'], transactionId: 'order-t2' },
        { acknowledged: true, status: 'error', error: ['name should not be null or undefined', 'name must be a string'], transactionId: 'order-t3' },
        { acknowledged: true, status: 'no_tenant_found', transactionId: 'order-t4' },
        { acknowledged: true, status: 'trigger_not_active', transactionId: 'order-t5' },
        { acknowledged: true, status: 'no_workflow_steps_defined', transactionId: 'order-t6' },
        { acknowledged: true, status: 'no_workflow_active_steps_defined', transactionId: 'order-t7' },
        { acknowledged: true, status: 'invalid_recipients', transactionId: 'order-t8' },
        { acknowledged: true, status: 'invalid_recipients', transactionId: 'order-t9' },
        { acknowledged: true, status: 'processed', transactionId: 'order-t10' },
        { acknowledged: true, status: 'processed', transactionId: expect.stringMatching(TXN) },
      ]);
      for (const id of ['order-t2', 'order-t3', 'order-t4', 'order-t5', 'order-t6', 'order-t7', 'order-t8', 'order-t9']) {
        expect(await notificationsOf(envA, id)).toHaveLength(0);
      }
      expect(await notificationsOf(envA, 'order-t10')).toHaveLength(1);
    });

    it('checks in the documented order: workflow, tenant, active, steps, active steps, recipients', async () => {
      const res = await trigger(envA, [
        { name: 'nope', to: [], tenant: 'no-such-tenant' },
        { name: 'inactive', to: [], tenant: 'no-such-tenant' },
        { name: 'inactive', to: [] },
        { name: 'empty', to: [] },
        { name: 'dormant', to: [] },
      ]).expect(201);
      expect(res.body.map((r: { status: string; error?: string[] }) => r.error?.[0] ?? r.status)).toEqual([
        'workflow_not_found',
        'no_tenant_found',
        'trigger_not_active',
        'no_workflow_steps_defined',
        'no_workflow_active_steps_defined',
      ]);
      for (const item of res.body) expect(item.transactionId).toMatch(TXN);
    });

    it('accepts 100 events of one recipient each', async () => {
      const events = Array.from({ length: 100 }, (_, i) => ({ name: 'welcome', to: `hundred-${i}`, transactionId: `hundred-${adapter}-${i}`, payload: { i } }));
      const res = await trigger(envA, events).expect(201);
      expect(res.body).toHaveLength(100);
      res.body.forEach((item: Record<string, unknown>, i: number) => {
        expectResponseShape(item);
        expect(item).toEqual({ acknowledged: true, status: 'processed', transactionId: `hundred-${adapter}-${i}` });
      });
      const [{ count }] = await rows(
        `SELECT count(*)::int AS count FROM ntf_notification WHERE environment_id = $1 AND transaction_id LIKE $2`,
        [envA.environmentId, `hundred-${adapter}-%`],
      );
      expect(count).toBe(100);
      const [{ jobs }] = await rows(`SELECT count(*)::int AS jobs FROM ntf_job WHERE environment_id = $1 AND transaction_id LIKE $2`, [envA.environmentId, `hundred-${adapter}-%`]);
      expect(jobs).toBe(200);
    });

    it('accepts an event of 100 recipients and refuses one of 101', async () => {
      const to = Array.from({ length: 100 }, (_, i) => ({ subscriberId: `many-${i}`, firstName: `N${i}` }));
      const res = await trigger(envA, [
        { name: 'welcome', to, transactionId: 'many-100' },
        { name: 'welcome', to: [...to, 'many-100th'], transactionId: 'many-101' },
      ]).expect(201);
      expect(res.body[0]).toEqual({ acknowledged: true, status: 'processed', transactionId: 'many-100' });
      expect(res.body[1]).toEqual({ acknowledged: true, status: 'error', error: ['to must contain no more than 100 elements'], transactionId: 'many-101' });
      const notifications = await notificationsOf(envA, 'many-100');
      expect(notifications).toHaveLength(100);
      // Created in the order of `to`.
      expect(notifications.map((n) => (n.to as { subscriberId: string }).subscriberId)).toEqual(to.map((r) => r.subscriberId));
      expect(await subscriberOf(envA, 'many-42')).toMatchObject({ first_name: 'N42' });
      expect(await subscriberOf(envA, 'many-100th')).toBeUndefined();
    });

    it('deduplicates recipients by trimmed subscriberId, the last one winning at the first one\'s place', async () => {
      const res = await trigger(envA, [
        { name: 'welcome', transactionId: 'dedupe-1', to: [{ subscriberId: 'dup', firstName: 'First', lastName: 'Kept?' }, 'dedupe-other', { subscriberId: ' dup ', firstName: 'Last' }] },
      ]).expect(201);
      expect(res.body[0].status).toBe('processed');
      const notifications = await notificationsOf(envA, 'dedupe-1');
      expect(notifications.map((n) => n.to)).toEqual([{ subscriberId: 'dup', firstName: 'Last' }, { subscriberId: 'dedupe-other' }]);
      // Within an event the last object replaces the earlier one whole: lastName was never written.
      expect(await subscriberOf(envA, 'dup')).toMatchObject({ first_name: 'Last', last_name: null });
    });

    it('upserts subscribers changing only the fields sent, later events winning field by field', async () => {
      await createSubscriber(t.moduleRef, envA.environmentId, {
        subscriberId: 'upsert-ada',
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@old.example',
        phone: '+100',
        locale: 'en',
        data: { plan: 'free' },
      });
      const before = await subscriberOf(envA, 'upsert-ada');
      await trigger(envA, [{ name: 'welcome', to: 'upsert-ada', transactionId: 'upsert-0' }]).expect(201);
      // A bare subscriberId changes nothing.
      expect(await subscriberOf(envA, 'upsert-ada')).toEqual(before);

      await trigger(envA, [
        { name: 'welcome', to: { subscriberId: 'upsert-ada', email: 'ada@new.example', lastName: null }, transactionId: 'upsert-1' },
        { name: 'welcome', to: [{ subscriberId: 'upsert-ada', data: { plan: 'pro' }, timezone: 'Europe/London' }, { subscriberId: 'upsert-new', avatar: 'https://a.example/x.png' }], transactionId: 'upsert-2' },
      ]).expect(201);
      const after = await subscriberOf(envA, 'upsert-ada');
      expect(after).toMatchObject({
        id: before.id,
        first_name: 'Ada',
        last_name: null,
        email: 'ada@new.example',
        phone: '+100',
        locale: 'en',
        timezone: 'Europe/London',
        data: { plan: 'pro' },
        version: (before.version as number) + 1,
        deleted: false,
      });
      const created = await subscriberOf(envA, 'upsert-new');
      expect(created).toMatchObject({ avatar: 'https://a.example/x.png', first_name: null, email: null, data: null, channels: [], version: 0, organization_id: envA.organizationId });
      expect(created.id).toMatch(ID);
      const [notification] = await notificationsOf(envA, 'upsert-1');
      expect(notification.subscriber_id).toBe(before.id);
    });

    it('stores subscriber channels with their integration, and refuses a channel without one', async () => {
      const res = await trigger(envA, [
        { name: 'welcome', transactionId: 'channels-1', to: { subscriberId: 'channels-ada', channels: [{ providerId: 'fcm', credentials: { deviceTokens: ['tok-1'] } }] } },
        { name: 'welcome', transactionId: 'channels-2', to: { subscriberId: 'channels-bob', channels: [{ providerId: 'apns', credentials: { deviceTokens: ['tok-2'] } }] } },
      ]).expect(201);
      expect(res.body[0].status).toBe('processed');
      expect(res.body[1]).toEqual({
        acknowledged: true,
        status: 'error',
        error: ['to.channels[0]: no integration of provider "apns" exists in this environment'],
        transactionId: 'channels-2',
      });
      const [fcm] = await rows('SELECT id FROM ntf_integration WHERE environment_id = $1 AND identifier = $2', [envA.environmentId, 'fcm-off']);
      expect((await subscriberOf(envA, 'channels-ada')).channels).toEqual([{ providerId: 'fcm', integrationId: fcm.id, credentials: { deviceTokens: ['tok-1'] } }]);
      expect(await subscriberOf(envA, 'channels-bob')).toBeUndefined();
    });

    it('updates the tenant with the name and data given, and stores it on the run', async () => {
      await createTenant(envA, 'tenant-acme', 'Acme', { plan: 'free', seats: 3 });
      const res = await trigger(envA, [
        { name: 'welcome', to: 'tenant-ada', tenant: 'tenant-acme', transactionId: 'tenant-1' },
        { name: 'welcome', to: 'tenant-ada', tenant: { identifier: 'tenant-acme', data: { plan: 'pro' } }, transactionId: 'tenant-2' },
        { name: 'welcome', to: 'tenant-ada', tenant: { identifier: 'tenant-acme', name: 'Acme Inc' }, transactionId: 'tenant-3' },
      ]).expect(201);
      expect(res.body.map((r: { status: string }) => r.status)).toEqual(['processed', 'processed', 'processed']);
      const [tenant] = await rows('SELECT name, data FROM ntf_tenant WHERE environment_id = $1 AND identifier = $2', [envA.environmentId, 'tenant-acme']);
      expect(tenant).toEqual({ name: 'Acme Inc', data: { plan: 'pro' } });
      const tenantOf = async (transactionId: string) => (await notificationsOf(envA, transactionId))[0].tenant;
      expect(await tenantOf('tenant-1')).toEqual({ identifier: 'tenant-acme', name: 'Acme', data: { plan: 'free', seats: 3 } });
      expect(await tenantOf('tenant-2')).toEqual({ identifier: 'tenant-acme', name: 'Acme', data: { plan: 'pro' } });
      expect(await tenantOf('tenant-3')).toEqual({ identifier: 'tenant-acme', name: 'Acme Inc', data: { plan: 'free', seats: 3 } });
      const jobs = await rows('SELECT DISTINCT tenant FROM ntf_job WHERE environment_id = $1 AND transaction_id = $2', [envA.environmentId, 'tenant-3']);
      expect(jobs).toEqual([{ tenant: { identifier: 'tenant-acme', name: 'Acme Inc', data: { plan: 'free', seats: 3 } } }]);
    });

    it('upserts the actor as a subscriber and stores it on the notification and jobs', async () => {
      await trigger(envA, [
        { name: 'welcome', to: 'actor-ada', actor: 'actor-boss', transactionId: 'actor-1' },
        { name: 'welcome', to: 'actor-ada', actor: { subscriberId: 'actor-chief', firstName: 'Chief', avatar: 'https://a.example/c.png' }, transactionId: 'actor-2' },
      ]).expect(201);
      expect(await subscriberOf(envA, 'actor-boss')).toMatchObject({ first_name: null });
      expect(await subscriberOf(envA, 'actor-chief')).toMatchObject({ first_name: 'Chief', avatar: 'https://a.example/c.png' });
      expect((await notificationsOf(envA, 'actor-1'))[0].actor).toEqual({ subscriberId: 'actor-boss' });
      expect((await notificationsOf(envA, 'actor-2'))[0].actor).toEqual({ subscriberId: 'actor-chief', firstName: 'Chief', avatar: 'https://a.example/c.png' });
      const actorIds = await rows('SELECT DISTINCT actor_id FROM ntf_job WHERE environment_id = $1 AND transaction_id = $2', [envA.environmentId, 'actor-2']);
      expect(actorIds).toEqual([{ actor_id: 'actor-chief' }]);
    });

    it('works with the official SDK (`novu.triggerBulk`)', async () => {
      await t.app.listen(0, '127.0.0.1');
      const { port } = t.app.getHttpServer().address() as AddressInfo;
      const novu = new Novu({ secretKey: envA.apiKey, serverURL: `http://127.0.0.1:${port}`, retryConfig: { strategy: 'none' } });
      const res = await novu.triggerBulk({
        events: [
          { workflowId: 'welcome', to: { subscriberId: 'sdk-ada', email: 'ada@example.com' }, payload: { a: 1 }, transactionId: 'sdk-1' },
          { workflowId: 'nope', to: 'sdk-ada' },
        ],
      });
      expect(res.result).toEqual([
        { acknowledged: true, status: 'processed', transactionId: 'sdk-1' },
        { acknowledged: true, status: 'error', error: ['workflow_not_found'], transactionId: expect.stringMatching(TXN) },
      ]);
    });
  });

  describe('rows written', () => {
    it('writes the notification, the job chain, the first execution details and the queue entry exactly', async () => {
      await createTenant(envA, 'rows-tenant', 'Rows', { tier: 1 });
      const payload = { orderId: 'ORD-9', items: [1, 2] };
      const res = await trigger(envA, [
        {
          name: 'order-confirmed',
          to: { subscriberId: 'rows-ada', email: 'ada@example.com', firstName: 'Ada' },
          payload,
          overrides: { email: { from: 'shop@example.com' } },
          transactionId: 'rows-1',
          actor: 'rows-boss',
          tenant: 'rows-tenant',
          context: { org: 'org-acme', team: { id: 'blue', data: { size: 3 } } },
        },
      ]).expect(201);
      expect(res.body[0]).toEqual({ acknowledged: true, status: 'processed', transactionId: 'rows-1' });
      const subscriber = await subscriberOf(envA, 'rows-ada');
      const tenant = { identifier: 'rows-tenant', name: 'Rows', data: { tier: 1 } };

      const [notification, ...others] = await notificationsOf(envA, 'rows-1');
      expect(others).toHaveLength(0);
      expect(notification).toEqual({
        id: expect.stringMatching(ID),
        environment_id: envA.environmentId,
        organization_id: envA.organizationId,
        created_at: expect.anything(),
        updated_at: expect.anything(),
        subscriber_id: subscriber.id,
        workflow_id: orderConfirmed.id,
        transaction_id: 'rows-1',
        digested_notification_id: null,
        channels: ['in_app', 'delay', 'digest', 'email'],
        payload,
        to: { subscriberId: 'rows-ada', email: 'ada@example.com', firstName: 'Ada' },
        tags: ['orders'],
        controls: null,
        tenant,
        actor: { subscriberId: 'rows-boss' },
        context: { org: 'org-acme', team: { id: 'blue', data: { size: 3 } } },
        critical: false,
        expire_at: null,
      });

      const jobs = await rows('SELECT * FROM ntf_job WHERE environment_id = $1 AND notification_id = $2 ORDER BY created_at, id', [envA.environmentId, notification.id]);
      expect(jobs.map((job) => job.type)).toEqual(['trigger', 'in_app', 'delay', 'digest', 'email']);
      expect(jobs.map((job) => job.status)).toEqual(['queued', 'pending', 'pending', 'pending', 'pending']);
      expect(jobs.map((job) => job.parent_id)).toEqual([null, ...jobs.slice(0, -1).map((job) => job.id)]);
      expect(jobs.map((job) => job.provider_id)).toEqual(['novu', 'novu', 'novu', 'novu', 'sendgrid']);
      expect(jobs.map((job) => job.group_key)).toEqual([null, null, null, 'ORD-9', null]);
      expect(jobs.map((job) => job.step)).toEqual([
        { _id: expect.stringMatching(ID), _templateId: expect.stringMatching(ID), type: 'trigger', active: true, filters: [], name: 'trigger' },
        ...orderConfirmed.steps,
      ]);
      expect(jobs.map((job) => job.digest)).toEqual([null, null, null, orderConfirmed.steps[2].metadata, null]);
      for (const job of jobs) {
        expect(job).toMatchObject({
          environment_id: envA.environmentId,
          organization_id: envA.organizationId,
          notification_id: notification.id,
          subscriber_id: subscriber.id,
          external_subscriber_id: 'rows-ada',
          workflow_id: orderConfirmed.id,
          identifier: 'order-confirmed',
          transaction_id: 'rows-1',
          payload,
          overrides: { email: { from: 'shop@example.com' } },
          tenant,
          actor_id: 'rows-boss',
          error: null,
          merged_digest_id: null,
          expire_at: null,
        });
        expect(String(job.created_at)).toBe(String(notification.created_at));
      }

      const details = await rows('SELECT * FROM ntf_execution_detail WHERE environment_id = $1 AND notification_id = $2 ORDER BY created_at, id', [envA.environmentId, notification.id]);
      expect(details.map((d) => [d.job_id, d.detail])).toEqual([
        [jobs[0].id, 'Step created'],
        [jobs[0].id, 'Step queued'],
        ...jobs.slice(1).map((job) => [job.id, 'Step created']),
      ]);
      details.forEach((detail, index) => {
        const job = jobs.find((j) => j.id === detail.job_id)!;
        expect(detail).toEqual({
          id: expect.stringMatching(ID),
          environment_id: envA.environmentId,
          organization_id: envA.organizationId,
          created_at: expect.anything(),
          updated_at: expect.anything(),
          job_id: job.id,
          notification_id: notification.id,
          workflow_id: orderConfirmed.id,
          subscriber_id: subscriber.id,
          external_subscriber_id: 'rows-ada',
          message_id: null,
          provider_id: null,
          transaction_id: 'rows-1',
          channel: job.type,
          detail: index === 1 ? 'Step queued' : 'Step created',
          source: 'Internal',
          status: 'Pending',
          is_test: false,
          is_retry: false,
          raw: null,
          webhook_status: null,
        });
      });

      const queued = await rows(`SELECT name, data, state FROM pgboss.job WHERE name = 'ntf_jobs' AND data->>'environmentId' = $1 AND data->>'jobId' = ANY($2::text[])`, [
        envA.environmentId,
        jobs.map((job) => job.id),
      ]);
      expect(queued).toEqual([{ name: 'ntf_jobs', data: { environmentId: envA.environmentId, jobId: jobs[0].id }, state: 'created' }]);
    });

    it('chains only active steps, picks providers, and keys digests and throttles', async () => {
      await trigger(envA, [{ name: 'multi', to: ['multi-ada', 'multi-bob'], payload: { user: { id: 7 } }, transactionId: 'multi-1' }]).expect(201);
      const notifications = await notificationsOf(envA, 'multi-1');
      expect(notifications).toHaveLength(2);
      expect(notifications[0]).toMatchObject({ channels: ['email', 'sms', 'chat', 'push', 'throttle', 'digest', 'custom'], tags: ['a', 'b'], critical: true, tenant: null, actor: null, context: null });
      for (const notification of notifications) {
        const jobs = await rows('SELECT * FROM ntf_job WHERE environment_id = $1 AND notification_id = $2 ORDER BY created_at, id', [envA.environmentId, notification.id]);
        expect(jobs.map((job) => job.type)).toEqual(['trigger', 'email', 'sms', 'chat', 'push', 'throttle', 'digest', 'custom', 'email']);
        // The step's integration; else the oldest active one of the channel; else `novu`.
        expect(jobs.map((job) => job.provider_id)).toEqual(['novu', 'mailgun', 'twilio', 'novu', 'novu', 'novu', 'novu', 'novu', 'sendgrid']);
        expect(jobs.map((job) => job.group_key)).toEqual([null, null, null, null, null, '7', '', null, null]);
        expect(jobs.map((job) => (job.step as { _id: string })._id).slice(1)).toEqual(multi.steps.slice(1).map((step) => step._id));
        expect(jobs[0]).toMatchObject({ actor_id: null, tenant: null, overrides: {}, digest: null });
        expect(jobs[6].digest).toEqual({ type: 'regular', amount: 1, unit: 'minutes' });
      }
      const [{ count }] = await rows(`SELECT count(*)::int AS count FROM ntf_execution_detail WHERE environment_id = $1 AND transaction_id = $2`, [envA.environmentId, 'multi-1']);
      expect(count).toBe(2 * (9 + 1));
    });
  });

  describe('transactionId', () => {
    it('refuses a transactionId already used in the environment, but not one used in another', async () => {
      await trigger(envA, [{ name: 'welcome', to: 'txn-ada', transactionId: 'txn-used' }]).expect(201);
      const again = await trigger(envA, [{ name: 'welcome', to: 'txn-bob', transactionId: 'txn-used' }]).expect(201);
      expect(again.body).toEqual([{ acknowledged: true, status: 'error', error: [DUPLICATE], transactionId: 'txn-used' }]);
      expect(await notificationsOf(envA, 'txn-used')).toHaveLength(1);
      expect(await subscriberOf(envA, 'txn-bob')).toBeUndefined();
      const inB = await trigger(envB, [{ name: 'only-in-b', to: 'txn-ada', transactionId: 'txn-used' }]).expect(201);
      expect(inB.body[0].status).toBe('processed');
    });

    it('refuses a transactionId used by an earlier event of the same request', async () => {
      const res = await trigger(envA, [
        { name: 'welcome', to: 'same-ada', transactionId: 'txn-same' },
        { name: 'welcome', to: 'same-bob', transactionId: 'txn-same' },
        { name: 'welcome', to: 'same-cy', transactionId: 'txn-other' },
      ]).expect(201);
      expect(res.body).toEqual([
        { acknowledged: true, status: 'processed', transactionId: 'txn-same' },
        { acknowledged: true, status: 'error', error: [DUPLICATE], transactionId: 'txn-same' },
        { acknowledged: true, status: 'processed', transactionId: 'txn-other' },
      ]);
      const notifications = await notificationsOf(envA, 'txn-same');
      expect(notifications.map((n) => n.to)).toEqual([{ subscriberId: 'same-ada' }]);
    });

    it('lets only one of two concurrent requests with the same transactionId through', async () => {
      const events = (who: string) => [{ name: 'welcome', to: who, transactionId: 'txn-race' }, { name: 'welcome', to: who, transactionId: `txn-race-${who}` }];
      const [first, second] = await Promise.all([trigger(envA, events('race-ada')), trigger(envA, events('race-bob'))]);
      const statuses = [first.body[0].status, second.body[0].status].sort();
      expect(statuses).toEqual(['error', 'processed']);
      expect(first.body[1].status).toBe('processed');
      expect(second.body[1].status).toBe('processed');
      expect(await notificationsOf(envA, 'txn-race')).toHaveLength(1);
    });

    it('generates `txn_<24 hex>` when none is given (or an empty one)', async () => {
      const res = await trigger(envA, [{ name: 'welcome', to: 'gen-ada' }, { name: 'welcome', to: 'gen-ada', transactionId: '' }]).expect(201);
      expect(res.body[0].transactionId).toMatch(TXN);
      expect(res.body[1].transactionId).toMatch(TXN);
      expect(res.body[0].transactionId).not.toBe(res.body[1].transactionId);
    });
  });

  describe('request validation', () => {
    it.each([
      ['no events', [], 'events must contain at least 1 elements'],
      ['101 events', Array.from({ length: 101 }, () => ({ name: 'welcome', to: 'x' })), 'events must contain no more than 100 elements'],
      ['events not an array', 'welcome', 'events must be an array'],
      ['events an object', { name: 'welcome', to: 'x' }, 'events must be an array'],
      ['events missing', undefined, 'events must be an array'],
    ])('%s → 422 with errors.events', async (_label, events, message) => {
      const res = await trigger(envA, events).expect(422);
      expect(res.body).toMatchObject({ statusCode: 422, path: BULK });
      expect(res.body.errors.events.messages).toContain(message);
    });

    it('answers 401 without credentials and with an unknown key', async () => {
      const missing = await request(t.server).post(BULK).send({ events: [{ name: 'welcome', to: 'x' }] }).expect(401);
      expect(missing.body).toMatchObject({ statusCode: 401, message: 'Missing authorization header' });
      const unknown = await request(t.server).post(BULK).set('Authorization', 'ApiKey nope').send({ events: [{ name: 'welcome', to: 'x' }] }).expect(401);
      expect(unknown.body).toMatchObject({ statusCode: 401, message: 'API Key not found' });
    });

    it('turns malformed events into per-event errors, never failing the request', async () => {
      const res = await trigger(envA, [
        42,
        null,
        'welcome',
        ['welcome'],
        { name: 7, to: 'x', transactionId: 'bad-1' },
        { name: 'welcome', transactionId: 'bad-2' },
        { name: 'welcome', to: 12, transactionId: 'bad-3' },
        { name: 'welcome', to: true },
        { name: 'welcome', to: 'x', payload: [1, 2], transactionId: 'bad-5' },
        { name: 'welcome', to: 'x', payload: 'text', overrides: 3 },
        { name: 'welcome', to: 'x', transactionId: 17 },
        { name: 'welcome', to: { subscriberId: 'bad-ada', email: 5, data: 'x' }, transactionId: 'bad-8' },
        { name: 'welcome', to: 'x', actor: 5, tenant: 5, context: 'x', transactionId: 'bad-9' },
        { name: 'welcome', to: 'x', bridgeUrl: 'https://example.com/bridge', transactionId: 'bad-10' },
        { name: 'welcome', to: 'x', payload: { text: 'bad \ud800 surrogate' }, transactionId: 'bad-11' },
        { name: 'welcome', to: 'x', transactionId: 'x'.repeat(256) },
        { name: 'welcome', to: [[['nested']]], transactionId: 'bad-13' },
        { name: 'welcome', to: { subscriberId: 'bad-ch', channels: 'slack' }, transactionId: 'bad-14' },
        { name: 'welcome', to: [{ subscriberId: 'x'.repeat(300) }], transactionId: 'bad-15' },
      ]).expect(201);
      res.body.forEach(expectResponseShape);
      expect(res.body).toEqual([
        { acknowledged: true, status: 'error', error: ['event must be an object'] },
        { acknowledged: true, status: 'error', error: ['event must be an object'] },
        { acknowledged: true, status: 'error', error: ['event must be an object'] },
        { acknowledged: true, status: 'error', error: ['event must be an object'] },
        { acknowledged: true, status: 'error', error: ['name must be a string'], transactionId: 'bad-1' },
        { acknowledged: true, status: 'error', error: ['to should not be null or undefined'], transactionId: 'bad-2' },
        { acknowledged: true, status: 'error', error: ['to must be a subscriberId, a subscriber object, or an array of them'], transactionId: 'bad-3' },
        { acknowledged: true, status: 'error', error: ['to must be a subscriberId, a subscriber object, or an array of them'] },
        { acknowledged: true, status: 'error', error: ['payload must be an object'], transactionId: 'bad-5' },
        { acknowledged: true, status: 'error', error: ['payload must be an object', 'overrides must be an object'] },
        { acknowledged: true, status: 'error', error: ['transactionId must be a string'] },
        { acknowledged: true, status: 'error', error: ['to.email must be a string or null', 'to.data must be an object or null'], transactionId: 'bad-8' },
        {
          acknowledged: true,
          status: 'error',
          error: [
            'actor must be a subscriberId or a subscriber object with a subscriberId',
            'tenant must be an identifier or an object with an identifier',
            'context must be an object',
          ],
          transactionId: 'bad-9',
        },
        { acknowledged: true, status: 'error', error: ['bridgeUrl is not supported: workflows are defined in the host application'], transactionId: 'bad-10' },
        { acknowledged: true, status: 'error', error: ['payload.text must not contain unpaired UTF-16 surrogates'], transactionId: 'bad-11' },
        { acknowledged: true, status: 'error', error: ['transactionId must be shorter than or equal to 255 characters'] },
        { acknowledged: true, status: 'invalid_recipients', transactionId: 'bad-13' },
        { acknowledged: true, status: 'error', error: ['to.channels must be an array'], transactionId: 'bad-14' },
        { acknowledged: true, status: 'invalid_recipients', transactionId: 'bad-15' },
      ]);
      expect(await subscriberOf(envA, 'bad-ada')).toBeUndefined();
    });

    it('refuses documents nested too deeply for PostgreSQL as a per-event error', async () => {
      let deep: Record<string, unknown> = { leaf: true };
      for (let i = 0; i < 200; i++) deep = { deeper: deep };
      const res = await trigger(envA, [{ name: 'welcome', to: 'deep-ada', payload: deep, transactionId: 'deep-1' }, { name: 'welcome', to: 'deep-ada', transactionId: 'deep-2' }]).expect(201);
      expect(res.body[0]).toMatchObject({ status: 'error', transactionId: 'deep-1' });
      expect(res.body[0].error[0]).toMatch(/is nested too deeply/);
      expect(res.body[1].status).toBe('processed');
    });

    it('answers 4xx, never 500, for bodies that are not usable', async () => {
      const nul = await trigger(envA, [{ name: 'welcome', to: 'nul\u0000ada' }]);
      expect(nul.status).toBe(422);
      const notJson = await request(t.server).post(BULK).set(envA.auth).set('Content-Type', 'application/json').send('{"events": [');
      expect(notJson.status).toBe(400);
      const arrayBody = await request(t.server).post(BULK).set(envA.auth).send([{ name: 'welcome', to: 'x' }]);
      expect(arrayBody.status).toBe(422);
      const nullEvents = await trigger(envA, null);
      expect(nullEvents.status).toBe(422);
    });

    it('refuses a call of the service with a bad list', async () => {
      const events = t.moduleRef.get(EventsService);
      await expect(events.triggerBulk(envA.environmentId, [])).rejects.toBeInstanceOf(RequestValidationException);
      await expect(events.triggerBulk(envA.environmentId, 'x' as never)).rejects.toBeInstanceOf(RequestValidationException);
    });
  });

  describe('tenant isolation', () => {
    it('does not see workflows, tenants or transactionIds of another environment', async () => {
      await createTenant(envA, 'iso-tenant');
      await trigger(envA, [{ name: 'welcome', to: 'iso-ada', transactionId: 'iso-1' }]).expect(201);
      const res = await trigger(envB, [
        { name: 'welcome', to: 'iso-ada', transactionId: 'iso-2' },
        { name: 'only-in-b', to: 'iso-ada', tenant: 'iso-tenant', transactionId: 'iso-3' },
        { name: 'only-in-b', to: 'iso-ada', transactionId: 'iso-1' },
      ]).expect(201);
      expect(res.body).toEqual([
        { acknowledged: true, status: 'error', error: ['workflow_not_found'], transactionId: 'iso-2' },
        { acknowledged: true, status: 'no_tenant_found', transactionId: 'iso-3' },
        { acknowledged: true, status: 'processed', transactionId: 'iso-1' },
      ]);
      const [inB] = await notificationsOf(envB, 'iso-1');
      const adaInB = await subscriberOf(envB, 'iso-ada');
      expect(inB.subscriber_id).toBe(adaInB.id);
      expect(adaInB.id).not.toBe((await subscriberOf(envA, 'iso-ada')).id);
    });
  });

  describe('idempotency', () => {
    it('replays a bulk trigger sent again with the same Idempotency-Key without creating anything twice', async () => {
      const key = `bulk-replay-${adapter}`;
      const events = [{ name: 'welcome', to: ['idem-ada', 'idem-bob'] }];
      const first = await trigger(envA, events, { 'Idempotency-Key': key }).expect(201);
      expect(first.headers['idempotency-key']).toBe(key);
      expect(first.headers['idempotency-replay']).toBeUndefined();
      const again = await trigger(envA, events, { 'Idempotency-Key': key }).expect(201);
      expect(again.headers['idempotency-replay']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await notificationsOf(envA, first.body[0].transactionId)).toHaveLength(2);
      const [{ count }] = await rows(`SELECT count(*)::int AS count FROM ntf_notification n JOIN ntf_subscriber s ON s.id = n.subscriber_id
        WHERE n.environment_id = $1 AND s.subscriber_id = 'idem-ada'`, [envA.environmentId]);
      expect(count).toBe(1);
    });
  });

  describe('set-based intake', () => {
    it('costs a fixed number of statements, whatever the number of events', async () => {
      await createTenant(envA, 'stmt-tenant');
      const events = (n: number, tag: string) =>
        Array.from({ length: n }, (_, i) => ({
          name: i % 2 ? 'order-confirmed' : 'multi',
          to: [`stmt-${i}`, { subscriberId: `stmt-${i + 1}`, firstName: `F${i}` }],
          actor: { subscriberId: 'stmt-actor', lastName: `L${i}` },
          tenant: { identifier: 'stmt-tenant', name: `T${i}` },
          payload: { orderId: `O${i}`, user: { id: i } },
          transactionId: `stmt-${tag}-${i}`,
        }));
      // Warms the caches (API key, organisation) so that both measured requests are alike.
      await trigger(envA, events(1, 'warm')).expect(201);
      let small: request.Response | undefined;
      let large: request.Response | undefined;
      const smallStatements = await statementsDuring(async () => (small = await trigger(envA, events(10, 'small'))));
      const largeStatements = await statementsDuring(async () => (large = await trigger(envA, events(100, 'large'))));
      expect(small?.status).toBe(201);
      expect(large?.status).toBe(201);
      expect(large?.body.every((r: { status: string }) => r.status === 'processed')).toBe(true);
      const expected = [
        'select workflows',
        'select tenants',
        'select integrations',
        'BEGIN',
        'lock transactionIds',
        'check transactionIds',
        'upsert subscribers',
        'update tenants',
        'insert notifications',
        'insert jobs and execution details',
        'enqueue',
        'COMMIT',
      ];
      expect(largeStatements.map(kindOf).sort()).toEqual([...expected].sort());
      expect(smallStatements.map(kindOf).sort()).toEqual([...expected].sort());
      // Inside the transaction, the order is fixed.
      const inTransaction = largeStatements.map(kindOf).filter((kind) => !kind.startsWith('select '));
      expect(inTransaction).toEqual(expected.filter((kind) => !kind.startsWith('select ')));
      const [{ count }] = await rows(`SELECT count(*)::int AS count FROM ntf_notification WHERE environment_id = $1 AND transaction_id LIKE 'stmt-large-%'`, [envA.environmentId]);
      expect(count).toBe(200);
      expect(await subscriberOf(envA, 'stmt-actor')).toMatchObject({ last_name: 'L99' });
      const [tenant] = await rows('SELECT name FROM ntf_tenant WHERE environment_id = $1 AND identifier = $2', [envA.environmentId, 'stmt-tenant']);
      expect(tenant.name).toBe('T99');
    });
  });
});
