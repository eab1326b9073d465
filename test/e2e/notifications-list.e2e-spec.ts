import { Novu } from '@novu/api';
import { ActivitiesResponseDto$inboundSchema } from '@novu/api/models/components';
import request from 'supertest';
import { NotificationsDatabase, NotificationsService, RequestValidationException, type SubscriberEntity, type WorkflowEntity } from '../../lib';
import { ADAPTERS, useTestApp } from '../fixtures/app';
import { createEnvironment, createSubscriber, type TestEnvironment } from '../fixtures/factories';
import { type CreatedNotification, createNotification, createWorkflow } from '../fixtures/notification.factory';
import { statementsDuring } from '../fixtures/statements';

describe.each(ADAPTERS)('GET /v1/notifications (%s)', (adapter) => {
  // No worker: its queue polling would land among the statements counted below.
  const t = useTestApp(adapter, { options: { worker: { enabled: false } } });
  let envA: TestEnvironment;
  let envB: TestEnvironment;
  let ada: SubscriberEntity;
  let bob: SubscriberEntity;
  let carol: SubscriberEntity;
  let full: WorkflowEntity;
  let smsOnly: WorkflowEntity;
  /** Env A's notifications, oldest first: n[0] … n[4], a minute apart. */
  let n: CreatedNotification[];
  let ofEnvB: CreatedNotification;
  const t0 = new Date(Date.now() - 3_600_000);
  const minute = (i: number) => new Date(t0.getTime() + i * 60_000);

  const list = (query: string, env: TestEnvironment = envA) => request(t.server).get(`/v1/notifications${query}`).set(env.auth);
  const ids = (body: { data: Array<{ _id: string }> }) => body.data.map((item) => item._id);
  /** Ids of env A's notifications, newest first, by index into `n`. */
  const newestFirst = (...indexes: number[]) => indexes.map((i) => n[i].notification.id);

  beforeAll(async () => {
    envA = await createEnvironment(t.moduleRef, 'A');
    envB = await createEnvironment(t.moduleRef, 'B');
    ada = await createSubscriber(t.moduleRef, envA.environmentId, { subscriberId: 'ada', firstName: 'Ada', email: 'ada@example.com' });
    bob = await createSubscriber(t.moduleRef, envA.environmentId, { subscriberId: 'bob', email: 'bob@example.com' });
    carol = await createSubscriber(t.moduleRef, envA.environmentId, { subscriberId: 'carol' });
    full = await createWorkflow(t.moduleRef, envA.environmentId);
    smsOnly = await createWorkflow(t.moduleRef, envA.environmentId, {
      identifier: 'sms-only',
      name: 'SMS only',
      steps: [{ type: 'sms', name: 'Text', template: { content: 'Order {{ payload.orderId }}' } }],
    });
    n = [];
    n.push(await createNotification(t.moduleRef, envA.environmentId, { subscriber: ada, workflow: full, startedAt: minute(0), transactionId: 'txn-first' }));
    // Rows written newest first with ids sorting the other way: the page must still list each
    // notification's jobs and details oldest first.
    n.push(await createNotification(t.moduleRef, envA.environmentId, { subscriber: bob, workflow: full, startedAt: minute(1), scrambled: true }));
    n.push(await createNotification(t.moduleRef, envA.environmentId, { subscriber: ada, workflow: smsOnly, startedAt: minute(2) }));
    n.push(await createNotification(t.moduleRef, envA.environmentId, { subscriber: carol, workflow: smsOnly, startedAt: minute(3) }));
    n.push(await createNotification(t.moduleRef, envA.environmentId, { subscriber: bob, workflow: smsOnly, startedAt: minute(4) }));
    const db = t.moduleRef.get(NotificationsDatabase);
    await db.query('UPDATE ntf_notification SET context = $2::jsonb WHERE id = $1', [n[3].notification.id, JSON.stringify({ tenant: 'acme', region: { id: 'eu', data: {} } })]);
    await db.query('UPDATE ntf_notification SET context = $2::jsonb WHERE id = $1', [n[4].notification.id, JSON.stringify({ tenant: 'acme' })]);

    const adaInB = await createSubscriber(t.moduleRef, envB.environmentId, { subscriberId: 'ada', email: 'ada@example.com' });
    const workflowInB = await createWorkflow(t.moduleRef, envB.environmentId);
    ofEnvB = await createNotification(t.moduleRef, envB.environmentId, { subscriber: adaInB, workflow: workflowInB, transactionId: 'txn-first' });
  });

  describe('success', () => {
    it('lists the notifications newest first, in the contract shape the SDK accepts', async () => {
      const res = await list('').expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toMatchObject({ hasMore: false, page: 0, pageSize: 10 });
      expect(ids(res.body)).toEqual(newestFirst(4, 3, 2, 1, 0));
      const parsed = ActivitiesResponseDto$inboundSchema.safeParse(res.body);
      expect(parsed.error?.issues ?? []).toEqual([]);
    });

    it('shows each item exactly as GET /v1/notifications/{id} does, jobs and execution details included', async () => {
      const { body } = await list('').expect(200);
      for (const item of body.data) {
        const single = await request(t.server).get(`/v1/notifications/${item._id}`).set(envA.auth).expect(200);
        expect(item).toEqual(single.body);
      }
      const first = body.data.find((item: { _id: string }) => item._id === n[0].notification.id);
      expect(first.jobs.map((job: { type: string }) => job.type)).toEqual(['in_app', 'delay', 'digest', 'email']);
      expect(first.subscriber).toEqual({ _id: ada.id, subscriberId: 'ada', firstName: 'Ada', email: 'ada@example.com' });
      expect(first.template).toMatchObject({ _id: full.id, name: 'Order confirmed' });
    });

    it('keeps each notification\'s jobs and details oldest first, whatever order they were written in', async () => {
      const { body } = await list('?subscriberIds=bob').expect(200);
      const scrambled = body.data.find((item: { _id: string }) => item._id === n[1].notification.id);
      const expectedJobs = n[1].jobs.filter((job) => job.type !== 'trigger').map((job) => job.id);
      expect(scrambled.jobs.map((job: { _id: string }) => job._id)).toEqual(expectedJobs);
      for (const job of scrambled.jobs as Array<{ _id: string; executionDetails: Array<{ _id: string }> }>) {
        const expected = n[1].executionDetails.filter((detail) => detail.jobId === job._id).map((detail) => detail.id);
        expect(job.executionDetails.map((detail) => detail._id)).toEqual(expected);
      }
    });

    it('walks the pages with hasMore', async () => {
      const seen: string[] = [];
      const pages: Array<{ hasMore: boolean; page: number; pageSize: number; count: number }> = [];
      for (let page = 0; page < 5; page += 1) {
        const { body } = await list(`?limit=2&page=${page}`).expect(200);
        pages.push({ hasMore: body.hasMore, page: body.page, pageSize: body.pageSize, count: body.data.length });
        seen.push(...ids(body));
        if (!body.hasMore) break;
      }
      expect(pages).toEqual([
        { hasMore: true, page: 0, pageSize: 2, count: 2 },
        { hasMore: true, page: 1, pageSize: 2, count: 2 },
        { hasMore: false, page: 2, pageSize: 2, count: 1 },
      ]);
      expect(seen).toEqual(newestFirst(4, 3, 2, 1, 0));
    });

    it('says hasMore false when the last page is exactly full, and gives an empty page past the end', async () => {
      const full5 = await list('?limit=5').expect(200);
      expect(full5.body).toMatchObject({ hasMore: false, pageSize: 5 });
      expect(full5.body.data).toHaveLength(5);
      const past = await list('?limit=5&page=7').expect(200);
      expect(past.body).toEqual({ hasMore: false, data: [], pageSize: 5, page: 7 });
    });

    it('accepts the largest limit (50)', async () => {
      const { body } = await list('?limit=50').expect(200);
      expect(body.pageSize).toBe(50);
      expect(body.data).toHaveLength(5);
    });
  });

  describe('filters', () => {
    it.each([
      ['transactionId', '?transactionId=txn-first', [0]],
      ['an unknown transactionId', '?transactionId=nope', []],
      ['one subscriberId', '?subscriberIds=ada', [2, 0]],
      ['several subscriberIds', '?subscriberIds=ada&subscriberIds=carol', [3, 2, 0]],
      ['an unknown subscriberId', '?subscriberIds=zed', []],
      ['one channel', '?channels=sms', [4, 3, 2]],
      ['several channels (any of them)', '?channels=in_app&channels=sms', [4, 3, 2, 1, 0]],
      ['a channel no run has', '?channels=push', []],
      ['an email', '?emails=ada%40example.com', [2, 0]],
      ['several emails', '?emails=ada%40example.com&emails=bob%40example.com', [4, 2, 1, 0]],
      ['an unknown email', '?emails=zed%40example.com', []],
      ['context keys (exact set)', '?contextKeys=tenant:acme', [4]],
      ['context keys in any order', '?contextKeys=tenant:acme&contextKeys=region:eu', [3]],
      ['an empty context (no context)', '?contextKeys=', [2, 1, 0]],
      ['a context key subset that is not the whole set', '?contextKeys=region:eu', []],
      ['subscriber and channel together (AND)', '?subscriberIds=ada&channels=sms', [2]],
      ['ignored parameters', '?search=x&severity=high&severity=low&topicKey=t&subscriptionId=s&unknown=1', [4, 3, 2, 1, 0]],
    ])('by %s', async (_case, query, expected) => {
      const { body } = await list(query).expect(200);
      expect(ids(body)).toEqual(newestFirst(...expected));
    });

    it('by templates (workflow ids)', async () => {
      expect(ids((await list(`?templates=${smsOnly.id}`).expect(200)).body)).toEqual(newestFirst(4, 3, 2));
      expect(ids((await list(`?templates=${smsOnly.id}&templates=${full.id}`).expect(200)).body)).toEqual(newestFirst(4, 3, 2, 1, 0));
      expect(ids((await list('?templates=not-a-workflow').expect(200)).body)).toEqual([]);
    });

    it('by creation date: after and before are inclusive bounds', async () => {
      const after = encodeURIComponent(minute(2).toISOString());
      const before = encodeURIComponent(minute(3).toISOString());
      expect(ids((await list(`?after=${after}`).expect(200)).body)).toEqual(newestFirst(4, 3, 2));
      expect(ids((await list(`?before=${before}`).expect(200)).body)).toEqual(newestFirst(3, 2, 1, 0));
      expect(ids((await list(`?after=${after}&before=${before}`).expect(200)).body)).toEqual(newestFirst(3, 2));
      expect(ids((await list('?after=2999-01-01').expect(200)).body)).toEqual([]);
    });
  });

  describe('validation', () => {
    it.each([
      ['limit 0', '?limit=0', 'limit'],
      ['limit over 50', '?limit=51', 'limit'],
      ['a non-numeric limit', '?limit=ten', 'limit'],
      ['a fractional limit', '?limit=1.5', 'limit'],
      ['a repeated limit', '?limit=1&limit=2', 'limit'],
      ['a negative page', '?page=-1', 'page'],
      ['a non-numeric page', '?page=first', 'page'],
      ['an absurd page', '?page=99999999999999999999', 'page'],
      ['an exponent page', '?page=1e3', 'page'],
      ['an unknown channel', '?channels=fax', 'channels'],
      ['an unknown channel among known ones', '?channels=sms&channels=fax', 'channels'],
      ['a malformed after', '?after=yesterday', 'after'],
      ['an impossible before', '?before=2025-13-45', 'before'],
    ])('answers 422 for %s', async (_case, query, field) => {
      const res = await list(query).expect(422);
      expect(res.body).toMatchObject({ statusCode: 422, error: 'Unprocessable Entity', path: `/v1/notifications${query}` });
      expect(res.body.errors[field].messages.length).toBeGreaterThan(0);
      expect(typeof res.body.timestamp).toBe('string');
    });

    it('never answers 500 for odd but well-formed text', async () => {
      for (const query of ["?transactionId='%20OR%201=1--", '?subscriberIds=%25', '?emails=%5C', '?contextKeys=%3A%3A', '?templates=%F0%9F%92%A5']) {
        const { body } = await list(query).expect(200);
        expect(body.data).toEqual([]);
      }
    });

    it('refuses the same things when the service is called directly', async () => {
      const service = t.moduleRef.get(NotificationsService);
      await expect(service.list(envA.environmentId, { limit: 51 })).rejects.toBeInstanceOf(RequestValidationException);
      await expect(service.list(envA.environmentId, { page: -1 })).rejects.toBeInstanceOf(RequestValidationException);
      await expect(service.list(envA.environmentId, { channels: ['fax' as 'sms'] })).rejects.toBeInstanceOf(RequestValidationException);
      await expect(service.list(envA.environmentId, { after: 'soon' })).rejects.toBeInstanceOf(RequestValidationException);
      const page = await service.list(envA.environmentId, { subscriberIds: 'carol', after: minute(0) });
      expect(page.data.map((activity) => activity.notification.id)).toEqual(newestFirst(3));
    });
  });

  it('runs three statements per page whatever its size, one when it is empty', async () => {
    const service = t.moduleRef.get(NotificationsService);
    for (const limit of [1, 5]) {
      const statements = await statementsDuring(() => service.list(envA.environmentId, { limit }));
      expect(statements).toHaveLength(3);
    }
    const empty = await statementsDuring(() => service.list(envA.environmentId, { transactionId: 'nope' }));
    expect(empty).toHaveLength(1);
  });

  it('keeps environments apart (tenant isolation)', async () => {
    const inB = await list('', envB).expect(200);
    expect(ids(inB.body)).toEqual([ofEnvB.notification.id]);
    // The same external subscriber id, transaction id and email in B match only B's rows.
    expect(ids((await list('?subscriberIds=ada', envB).expect(200)).body)).toEqual([ofEnvB.notification.id]);
    expect(ids((await list('?transactionId=txn-first', envB).expect(200)).body)).toEqual([ofEnvB.notification.id]);
    expect(ids((await list('?emails=ada%40example.com', envB).expect(200)).body)).toEqual([ofEnvB.notification.id]);
    // A's workflow ids mean nothing in B.
    expect(ids((await list(`?templates=${full.id}`, envB).expect(200)).body)).toEqual([]);
    expect(ids((await list('').expect(200)).body)).not.toContain(ofEnvB.notification.id);
  });

  it('answers 401 with the contract messages', async () => {
    const missing = await request(t.server).get('/v1/notifications').expect(401);
    expect(missing.body).toMatchObject({ statusCode: 401, message: 'Missing authorization header', path: '/v1/notifications' });
    const unknown = await request(t.server).get('/v1/notifications').set('Authorization', 'ApiKey nope').expect(401);
    expect(unknown.body.message).toBe('API Key not found');
    // Authentication comes before validation.
    await request(t.server).get('/v1/notifications?limit=0').expect(401);
  });

  it('is parsed by the official SDK (`notifications.list`)', async () => {
    await t.app.listen(0, '127.0.0.1');
    const novu = new Novu({ secretKey: envA.apiKey, serverURL: await t.app.getUrl() });
    const { result } = await novu.notifications.list({ subscriberIds: ['ada'], channels: ['sms', 'in_app'], limit: 1, page: 0 });
    expect(result.hasMore).toBe(true);
    expect(result.data.map((item) => item.id)).toEqual(newestFirst(2));
    const next = await novu.notifications.list({ subscriberIds: ['ada'], limit: 1, page: 1 });
    expect(next.result.hasMore).toBe(false);
    expect(next.result.data[0].jobs?.map((job) => job.type)).toEqual(['in_app', 'delay', 'digest', 'email']);
  });
});
