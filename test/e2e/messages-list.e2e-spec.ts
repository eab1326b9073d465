import { Novu } from '@novu/api';
import { MessagesResponseDto$inboundSchema } from '@novu/api/models/components';
import request from 'supertest';
import { type MessageEntity, MessagesService, RequestValidationException, type SubscriberEntity } from '../../lib';
import { ADAPTERS, useTestApp } from '../fixtures/app';
import { createEnvironment, createSubscriber, type TestEnvironment } from '../fixtures/factories';
import { stampMessages, updateMessage } from '../fixtures/listing.factory';
import { createMessages } from '../fixtures/message.factory';

describe.each(ADAPTERS)('GET /v1/messages (%s)', (adapter) => {
  const t = useTestApp(adapter);
  let envA: TestEnvironment;
  let envB: TestEnvironment;
  let alice: SubscriberEntity;
  let bob: SubscriberEntity;
  /** Env A's messages, oldest first, a minute apart; m[6] is deleted. */
  let m: MessageEntity[];
  let ofEnvB: MessageEntity;

  const list = (query: string, env: TestEnvironment = envA) => request(t.server).get(`/v1/messages${query}`).set(env.auth);
  const ids = (body: { data: Array<{ _id: string }> }) => body.data.map((item) => item._id);
  /** Ids of env A's messages by index into `m`. */
  const pick = (...indexes: number[]) => indexes.map((i) => m[i].id);

  beforeAll(async () => {
    envA = await createEnvironment(t.moduleRef, 'A');
    envB = await createEnvironment(t.moduleRef, 'B');
    alice = await createSubscriber(t.moduleRef, envA.environmentId, { subscriberId: 'alice' });
    bob = await createSubscriber(t.moduleRef, envA.environmentId, { subscriberId: 'bob' });
    const written = [
      ...(await createMessages(t.moduleRef, alice, 3, { transactionId: 'txn-1' })),
      ...(await createMessages(t.moduleRef, alice, 1, { transactionId: 'txn-2', channel: 'email', subject: 'Your order', providerId: 'sendgrid' })),
      ...(await createMessages(t.moduleRef, bob, 2, { transactionId: 'txn-3', channel: 'sms', providerId: 'twilio' })),
      ...(await createMessages(t.moduleRef, bob, 1, { transactionId: 'txn-1' })),
    ];
    m = await stampMessages(t.moduleRef, written, new Date(Date.now() - 3_600_000));
    m[3] = await updateMessage(t.moduleRef, m[3].id, { contextKeys: ['tenant:acme'] });
    m[4] = await updateMessage(t.moduleRef, m[4].id, { contextKeys: ['region:eu', 'tenant:acme'] });
    m[5] = await updateMessage(t.moduleRef, m[5].id, { contextKeys: ['region:eu', 'tenant:acme'] });
    m[6] = await updateMessage(t.moduleRef, m[6].id, { deleted: true });

    const aliceInB = await createSubscriber(t.moduleRef, envB.environmentId, { subscriberId: 'alice' });
    [ofEnvB] = await createMessages(t.moduleRef, aliceInB, 1, { transactionId: 'txn-1' });
  });

  describe('success', () => {
    it('lists the messages newest first, deleted ones excluded, in the contract shape the SDK accepts', async () => {
      const res = await list('').expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toMatchObject({ totalCount: 6, hasMore: false, page: 0, pageSize: 10 });
      expect(ids(res.body)).toEqual(pick(5, 4, 3, 2, 1, 0));
      const parsed = MessagesResponseDto$inboundSchema.safeParse(res.body);
      expect(parsed.error?.issues ?? []).toEqual([]);
      const email = res.body.data[2];
      expect(email).toMatchObject({
        _id: m[3].id,
        _environmentId: envA.environmentId,
        _organizationId: envA.organizationId,
        _subscriberId: alice.id,
        _notificationId: m[3].notificationId,
        transactionId: 'txn-2',
        channel: 'email',
        subject: 'Your order',
        providerId: 'sendgrid',
        read: false,
        seen: false,
        cta: {},
        status: 'sent',
        _feedId: null,
        contextKeys: ['tenant:acme'],
        createdAt: m[3].createdAt.toISOString(),
      });
      // Optional, non-nullable fields that are unset are omitted, never null.
      for (const key of ['title', 'email', 'phone', 'lastReadDate', 'lastSeenDate', 'errorId', 'errorText']) expect(email).not.toHaveProperty(key);
    });

    it('walks the pages with hasMore and the same totalCount', async () => {
      const first = await list('?limit=4').expect(200);
      expect(first.body).toMatchObject({ totalCount: 6, hasMore: true, page: 0, pageSize: 4 });
      expect(ids(first.body)).toEqual(pick(5, 4, 3, 2));
      const second = await list('?limit=4&page=1').expect(200);
      expect(second.body).toMatchObject({ totalCount: 6, hasMore: false, page: 1, pageSize: 4 });
      expect(ids(second.body)).toEqual(pick(1, 0));
      const exact = await list('?limit=3&page=1').expect(200);
      expect(exact.body).toMatchObject({ hasMore: false, page: 1 });
      expect(ids(exact.body)).toEqual(pick(2, 1, 0));
      const past = await list('?limit=4&page=9').expect(200);
      expect(past.body).toEqual({ totalCount: 6, hasMore: false, data: [], pageSize: 4, page: 9 });
    });

    it('accepts the largest limit (100)', async () => {
      const { body } = await list('?limit=100').expect(200);
      expect(body.pageSize).toBe(100);
    });
  });

  describe('filters', () => {
    it.each([
      ['subscriberId', '?subscriberId=alice', [3, 2, 1, 0]],
      ['an unknown subscriberId', '?subscriberId=zed', []],
      ['channel', '?channel=sms', [5, 4]],
      ['one transactionId', '?transactionId=txn-1', [2, 1, 0]],
      ['several transactionIds', '?transactionId=txn-1&transactionId=txn-3', [5, 4, 2, 1, 0]],
      ['an unknown transactionId', '?transactionId=nope', []],
      ['context keys (exact set)', '?contextKeys=tenant:acme', [3]],
      ['context keys in any order', '?contextKeys=tenant:acme&contextKeys=region:eu', [5, 4]],
      ['an empty context (no context)', '?contextKeys=', [2, 1, 0]],
      ['subscriber and channel together (AND)', '?subscriberId=alice&channel=in_app', [2, 1, 0]],
    ])('by %s', async (_case, query, expected) => {
      const { body } = await list(query).expect(200);
      expect(ids(body)).toEqual(pick(...expected));
      expect(body.totalCount).toBe(expected.length);
      expect(body.hasMore).toBe(false);
    });
  });

  describe('validation', () => {
    it.each([
      ['limit 0', '?limit=0', 'limit'],
      ['limit over 100', '?limit=101', 'limit'],
      ['a non-numeric limit', '?limit=ten', 'limit'],
      ['a negative page', '?page=-1', 'page'],
      ['a fractional page', '?page=0.5', 'page'],
      ['an absurd page', '?page=99999999999999999999', 'page'],
      ['an unknown channel', '?channel=fax', 'channel'],
      ['a repeated channel', '?channel=sms&channel=email', 'channel'],
      ['a repeated subscriberId', '?subscriberId=a&subscriberId=b', 'subscriberId'],
    ])('answers 422 for %s', async (_case, query, field) => {
      const res = await list(query).expect(422);
      expect(res.body).toMatchObject({ statusCode: 422, error: 'Unprocessable Entity', path: `/v1/messages${query}` });
      expect(res.body.errors[field].messages.length).toBeGreaterThan(0);
    });

    it('never answers 500 for odd but well-formed text', async () => {
      for (const query of ["?subscriberId='%20OR%201=1--", '?transactionId=%25', '?contextKeys=%5C%22']) {
        const { body } = await list(query).expect(200);
        expect(body).toMatchObject({ data: [], totalCount: 0, hasMore: false });
      }
    });

    it('refuses the same things when the service is called directly', async () => {
      const service = t.moduleRef.get(MessagesService);
      await expect(service.list(envA.environmentId, { limit: 0 })).rejects.toBeInstanceOf(RequestValidationException);
      await expect(service.list(envA.environmentId, { channel: 'fax' as 'sms' })).rejects.toBeInstanceOf(RequestValidationException);
      const page = await service.list(envA.environmentId, { transactionId: 'txn-3', limit: 1 });
      expect(page).toMatchObject({ totalCount: 2, hasMore: true, page: 0, pageSize: 1 });
    });
  });

  it('keeps environments apart (tenant isolation)', async () => {
    const inB = await list('', envB).expect(200);
    expect(ids(inB.body)).toEqual([ofEnvB.id]);
    expect(inB.body.totalCount).toBe(1);
    expect(ids((await list('?subscriberId=alice', envB).expect(200)).body)).toEqual([ofEnvB.id]);
    expect(ids((await list('?transactionId=txn-1', envB).expect(200)).body)).toEqual([ofEnvB.id]);
    expect(ids((await list('?subscriberId=bob', envB).expect(200)).body)).toEqual([]);
    expect(ids((await list('').expect(200)).body)).not.toContain(ofEnvB.id);
  });

  it('caps totalCount at 50,000 while hasMore still tells the truth', async () => {
    const envC = await createEnvironment(t.moduleRef, 'C');
    const many = await createSubscriber(t.moduleRef, envC.environmentId, { subscriberId: 'many' });
    await createMessages(t.moduleRef, many, 50_005);
    const { body } = await list('?limit=1&page=50003', envC).expect(200);
    expect(body).toMatchObject({ totalCount: 50_000, hasMore: true, page: 50_003 });
    expect(body.data).toHaveLength(1);
    const last = await list('?limit=1&page=50004', envC).expect(200);
    expect(last.body).toMatchObject({ totalCount: 50_000, hasMore: false });
  });

  it('answers 401 with the contract messages', async () => {
    const missing = await request(t.server).get('/v1/messages').expect(401);
    expect(missing.body).toMatchObject({ statusCode: 401, message: 'Missing authorization header', path: '/v1/messages' });
    const unknown = await request(t.server).get('/v1/messages').set('Authorization', 'ApiKey nope').expect(401);
    expect(unknown.body.message).toBe('API Key not found');
  });

  it('is parsed by the official SDK (`messages.retrieve`)', async () => {
    await t.app.listen(0, '127.0.0.1');
    const novu = new Novu({ secretKey: envA.apiKey, serverURL: await t.app.getUrl() });
    const { result } = await novu.messages.retrieve({ subscriberId: 'bob', transactionId: ['txn-3'], limit: 1, page: 0 });
    expect(result).toMatchObject({ totalCount: 2, hasMore: true, page: 0, pageSize: 1 });
    expect(result.data.map((message) => message.id)).toEqual(pick(5));
  });
});
