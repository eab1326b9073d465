import { Novu } from '@novu/api';
import { FeedResponseDto$inboundSchema } from '@novu/api/models/components';
import request from 'supertest';
import { type MessageEntity, MessagesService, RequestValidationException, type SubscriberEntity } from '../../lib';
import { ADAPTERS, useTestApp } from '../fixtures/app';
import { createEnvironment, createSubscriber, type TestEnvironment } from '../fixtures/factories';
import { base64Json, stampMessages, updateMessage } from '../fixtures/listing.factory';
import { createMessages } from '../fixtures/message.factory';

/** Required by the SDK's `NotificationFeedItemDto`. */
const REQUIRED = [
  '_id', '_templateId', '_environmentId', '_organizationId', '_notificationId', '_subscriberId', '_jobId', 'transactionId', 'content',
  'channel', 'read', 'seen', 'archived', 'cta', 'status',
];
/** Nullable in the contract: always present, possibly null. */
const NULLABLE = ['_feedId', 'createdAt', 'updatedAt', 'templateIdentifier', 'providerId', 'subject', 'deviceTokens', 'data', 'tags'];

describe.each(ADAPTERS)('GET /v1/subscribers/{subscriberId}/notifications/feed (%s)', (adapter) => {
  const t = useTestApp(adapter);
  let envA: TestEnvironment;
  let envB: TestEnvironment;
  let alice: SubscriberEntity;
  /** Alice's in-app messages, oldest first, a minute apart: f[0] read and seen, f[1] seen, f[2] and f[3] neither. */
  let f: MessageEntity[];
  let ofEnvB: MessageEntity;

  const path = (subscriberId: string) => `/v1/subscribers/${encodeURIComponent(subscriberId)}/notifications/feed`;
  const feed = (subscriberId: string, query = '', env: TestEnvironment = envA) => request(t.server).get(`${path(subscriberId)}${query}`).set(env.auth);
  const ids = (body: { data: Array<{ _id: string }> }) => body.data.map((item) => item._id);
  const pick = (...indexes: number[]) => indexes.map((i) => f[i].id);

  beforeAll(async () => {
    envA = await createEnvironment(t.moduleRef, 'A');
    envB = await createEnvironment(t.moduleRef, 'B');
    alice = await createSubscriber(t.moduleRef, envA.environmentId, {
      subscriberId: 'alice',
      firstName: 'Alice',
      avatar: 'https://example.com/alice.png',
      email: 'alice@example.com',
    });
    const bob = await createSubscriber(t.moduleRef, envA.environmentId, { subscriberId: 'bob' });
    const start = new Date(Date.now() - 3_600_000);
    const written = [
      ...(await createMessages(t.moduleRef, alice, 1, { read: true, seen: true, lastReadDate: start, lastSeenDate: start })),
      ...(await createMessages(t.moduleRef, alice, 1, { seen: true, lastSeenDate: start })),
      ...(await createMessages(t.moduleRef, alice, 2)),
    ];
    f = await stampMessages(t.moduleRef, written, start);
    f[0] = await updateMessage(t.moduleRef, f[0].id, {
      payload: { orderId: '1', tags: ['a', 'b'], nested: { x: 1, y: 2 }, note: '>>>???' },
      jobId: 'a'.repeat(24),
      deviceTokens: ['token-1'],
      tags: ['orders'],
    });
    f[1] = await updateMessage(t.moduleRef, f[1].id, { payload: { orderId: '2' }, archived: true });
    // Not in Alice's feed: another channel, a deleted message, another subscriber's message.
    await createMessages(t.moduleRef, alice, 1, { channel: 'email', subject: 'Hello' });
    const [deleted] = await createMessages(t.moduleRef, alice, 1);
    await updateMessage(t.moduleRef, deleted.id, { deleted: true });
    await createMessages(t.moduleRef, bob, 2);

    const aliceInB = await createSubscriber(t.moduleRef, envB.environmentId, { subscriberId: 'alice' });
    [ofEnvB] = await createMessages(t.moduleRef, aliceInB, 1);
    await createSubscriber(t.moduleRef, envB.environmentId, { subscriberId: 'only-in-b' });
  });

  describe('success', () => {
    it('lists the subscriber\'s in-app messages newest first, in the contract shape the SDK accepts', async () => {
      const res = await feed('alice').expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toMatchObject({ totalCount: 4, hasMore: false, page: 0, pageSize: 10 });
      expect(ids(res.body)).toEqual(pick(3, 2, 1, 0));
      const parsed = FeedResponseDto$inboundSchema.safeParse(res.body);
      expect(parsed.error?.issues ?? []).toEqual([]);
      for (const item of res.body.data) {
        for (const key of REQUIRED) expect(item).toHaveProperty(key);
        for (const key of NULLABLE) expect(item).toHaveProperty(key);
        expect(typeof item.content).toBe('string');
        expect(item).not.toHaveProperty('actor');
        // Unset optional names are omitted, never null.
        expect(item.subscriber).toEqual({ _id: alice.id, subscriberId: 'alice', firstName: 'Alice', avatar: 'https://example.com/alice.png' });
      }
      const oldest = res.body.data[3];
      expect(oldest).toMatchObject({
        _id: f[0].id,
        _templateId: f[0].workflowId,
        _messageTemplateId: f[0].messageTemplateId,
        _environmentId: envA.environmentId,
        _organizationId: envA.organizationId,
        _notificationId: f[0].notificationId,
        _subscriberId: alice.id,
        _feedId: null,
        _jobId: 'a'.repeat(24),
        createdAt: f[0].createdAt.toISOString(),
        transactionId: f[0].transactionId,
        templateIdentifier: 'order-shipped',
        providerId: 'novu',
        content: 'Your order has shipped',
        subject: null,
        channel: 'in_app',
        read: true,
        seen: true,
        archived: false,
        deviceTokens: ['token-1'],
        cta: {},
        status: 'sent',
        payload: { orderId: '1', tags: ['a', 'b'], nested: { x: 1, y: 2 }, note: '>>>???' },
        data: null,
        overrides: {},
        tags: ['orders'],
      });
      expect(res.body.data[2]).toMatchObject({ archived: true, deviceTokens: null, _jobId: '' });
    });

    it('shows a message without workflow or job, and content that is not text, with the strings the SDK requires', async () => {
      const dora = await createSubscriber(t.moduleRef, envA.environmentId, { subscriberId: 'dora', lastName: 'Explorer' });
      const [blocks] = await createMessages(t.moduleRef, dora, 1, {
        workflowId: null,
        messageTemplateId: null,
        templateIdentifier: null,
        providerId: null,
        content: [{ type: 'text', content: 'Line one' }, { type: 'button', content: 'Open', url: 'https://example.com' }],
        cta: { type: 'redirect', data: { url: '/orders' } },
      });
      const [empty] = await createMessages(t.moduleRef, dora, 1, { content: null });
      await stampMessages(t.moduleRef, [blocks, empty], new Date(Date.now() - 60_000));
      const { body } = await feed('dora').expect(200);
      expect(FeedResponseDto$inboundSchema.safeParse(body).error?.issues ?? []).toEqual([]);
      expect(body.data[0]).toMatchObject({ _id: empty.id, content: '' });
      expect(body.data[1]).toMatchObject({
        _id: blocks.id,
        _templateId: '',
        _jobId: '',
        templateIdentifier: null,
        providerId: null,
        content: 'Line one\nOpen',
        cta: { type: 'redirect', data: { url: '/orders' } },
      });
      expect(body.data[1]).not.toHaveProperty('_messageTemplateId');
      expect(body.data[1].subscriber).toEqual({ _id: expect.any(String), subscriberId: 'dora', lastName: 'Explorer' });
    });

    it('walks the pages with hasMore and the same totalCount', async () => {
      const first = await feed('alice', '?limit=3').expect(200);
      expect(first.body).toMatchObject({ totalCount: 4, hasMore: true, page: 0, pageSize: 3 });
      expect(ids(first.body)).toEqual(pick(3, 2, 1));
      const second = await feed('alice', '?limit=3&page=1').expect(200);
      expect(second.body).toMatchObject({ totalCount: 4, hasMore: false, page: 1, pageSize: 3 });
      expect(ids(second.body)).toEqual(pick(0));
      const exact = await feed('alice', '?limit=2&page=1').expect(200);
      expect(exact.body).toMatchObject({ hasMore: false });
      expect(ids(exact.body)).toEqual(pick(1, 0));
      const past = await feed('alice', '?page=3').expect(200);
      expect(past.body).toEqual({ totalCount: 4, hasMore: false, data: [], pageSize: 10, page: 3 });
    });

    it('gives an empty feed for a subscriber without in-app messages', async () => {
      await createSubscriber(t.moduleRef, envA.environmentId, { subscriberId: 'quiet' });
      const { body } = await feed('quiet').expect(200);
      expect(body).toEqual({ totalCount: 0, hasMore: false, data: [], pageSize: 10, page: 0 });
    });

    it('accepts the largest limit (100)', async () => {
      const { body } = await feed('alice', '?limit=100').expect(200);
      expect(body.pageSize).toBe(100);
    });
  });

  describe('filters', () => {
    it.each([
      ['read=true', '?read=true', [0]],
      ['read=false', '?read=false', [3, 2, 1]],
      ['seen=true', '?seen=true', [1, 0]],
      ['seen=false', '?seen=false', [3, 2]],
      ['read=false and seen=true', '?read=false&seen=true', [1]],
    ])('by %s', async (_case, query, expected) => {
      const { body } = await feed('alice', query).expect(200);
      expect(ids(body)).toEqual(pick(...expected));
      expect(body.totalCount).toBe(expected.length);
    });

    it.each([
      ['a top-level value', { orderId: '1' }, [0]],
      ['another top-level value', { orderId: '2' }, [1]],
      ['a partial nested object', { nested: { x: 1 } }, [0]],
      ['an array element', { tags: ['b'] }, [0]],
      ['the empty object (everything)', {}, [3, 2, 1, 0]],
      ['a value nobody has', { orderId: 'nope' }, []],
      ['a value of another type', { orderId: 1 }, []],
    ])('by payload: %s', async (_case, partial, expected) => {
      const { body } = await feed('alice', `?payload=${encodeURIComponent(base64Json(partial))}`).expect(200);
      expect(ids(body)).toEqual(pick(...expected));
    });

    it('by payload in either base64 alphabet, with or without padding', async () => {
      const partial = JSON.stringify({ note: '>>>???' });
      const standard = Buffer.from(partial).toString('base64');
      const urlSafe = Buffer.from(partial).toString('base64url');
      // The value was chosen so that its encodings use the characters the two alphabets disagree on.
      expect(standard).toMatch(/[+/]/);
      expect(urlSafe).toMatch(/[-_]/);
      for (const text of [standard, standard.replace(/=+$/, ''), urlSafe]) {
        const { body } = await feed('alice', `?payload=${encodeURIComponent(text)}`).expect(200);
        expect(ids(body)).toEqual(pick(0));
      }
    });

    it('combines payload with read and seen', async () => {
      const { body } = await feed('alice', `?payload=${encodeURIComponent(base64Json({ orderId: '1' }))}&read=false`).expect(200);
      expect(body.data).toEqual([]);
    });
  });

  describe('validation', () => {
    const deep = (depth: number): unknown => (depth === 0 ? 1 : { a: deep(depth - 1) });
    it.each([
      ['limit 0', '?limit=0', 'limit'],
      ['limit over 100', '?limit=101', 'limit'],
      ['a non-numeric limit', '?limit=ten', 'limit'],
      ['a negative page', '?page=-1', 'page'],
      ['an absurd page', '?page=99999999999999999999', 'page'],
      ['read that is not a boolean', '?read=yes', 'read'],
      ['seen that is not a boolean', '?seen=1', 'seen'],
      ['a repeated read', '?read=true&read=false', 'read'],
      ['a payload that is not base64', '?payload=not%20base64!', 'payload'],
      ['an empty payload', '?payload=', 'payload'],
      ['a payload that is not JSON', `?payload=${Buffer.from('not json').toString('base64')}`, 'payload'],
      ['a payload that is a JSON array', `?payload=${base64Json([1, 2])}`, 'payload'],
      ['a payload that is JSON null', `?payload=${base64Json(null)}`, 'payload'],
      ['a payload that is a JSON string', `?payload=${base64Json('x')}`, 'payload'],
      ['a payload holding a NUL character', `?payload=${encodeURIComponent(base64Json({ a: 'x\u0000y' }))}`, 'payload'],
      ['a payload holding a NUL character in a key', `?payload=${encodeURIComponent(base64Json({ 'a\u0000': 1 }))}`, 'payload'],
      ['a payload holding a lone surrogate', `?payload=${encodeURIComponent(base64Json({ a: '\ud800' }))}`, 'payload'],
      ['a payload nested too deeply', `?payload=${encodeURIComponent(base64Json(deep(40)))}`, 'payload'],
    ])('answers 422 for %s', async (_case, query, field) => {
      const res = await feed('alice', query).expect(422);
      expect(res.body).toMatchObject({ statusCode: 422, error: 'Unprocessable Entity', path: `${path('alice')}${query}` });
      expect(res.body.errors[field].messages.length).toBeGreaterThan(0);
    });

    it('refuses the same things when the service is called directly', async () => {
      const service = t.moduleRef.get(MessagesService);
      await expect(service.listFeed(envA.environmentId, 'alice', { limit: 101 })).rejects.toBeInstanceOf(RequestValidationException);
      await expect(service.listFeed(envA.environmentId, 'alice', { payload: 'e30' + '!' })).rejects.toBeInstanceOf(RequestValidationException);
      await expect(service.listFeed(envA.environmentId, 'alice', { read: 'true' as unknown as boolean })).rejects.toBeInstanceOf(RequestValidationException);
      const page = await service.listFeed(envA.environmentId, 'alice', { payload: base64Json({ orderId: '2' }) });
      expect(page.data.map((message) => message.id)).toEqual(pick(1));
      expect(page.subscriber).toMatchObject({ id: alice.id, subscriberId: 'alice', lastName: null });
    });
  });

  it('answers 404 for an unknown subscriber, before looking at anything else', async () => {
    const res = await feed('nobody').expect(404);
    expect(res.body).toEqual({
      statusCode: 404,
      message: 'Subscriber not found',
      error: 'Not Found',
      path: path('nobody'),
      timestamp: expect.any(String),
    });
    await feed('nobody', '?read=true&payload=e30%3D').expect(404);
    // Odd identifiers are just unknown subscribers, never a 500. (Fastify refuses path parameters
    // over 100 characters with a 414 before routing, so the long one stays under that.)
    for (const odd of ["' OR 1=1 --", '%', '💥', 'a'.repeat(90)]) await feed(odd).expect(404);
  });

  it('keeps environments apart (tenant isolation)', async () => {
    const inB = await feed('alice', '', envB).expect(200);
    expect(ids(inB.body)).toEqual([ofEnvB.id]);
    expect(inB.body.totalCount).toBe(1);
    expect(ids((await feed('alice').expect(200)).body)).not.toContain(ofEnvB.id);
    // A subscriber of B does not exist for A's key.
    const res = await feed('only-in-b').expect(404);
    expect(res.body.message).toBe('Subscriber not found');
  });

  it('answers 401 with the contract messages', async () => {
    const missing = await request(t.server).get(path('alice')).expect(401);
    expect(missing.body).toMatchObject({ statusCode: 401, message: 'Missing authorization header', path: path('alice') });
    const unknown = await request(t.server).get(path('alice')).set('Authorization', 'ApiKey nope').expect(401);
    expect(unknown.body.message).toBe('API Key not found');
    // Authentication comes before the subscriber lookup and validation.
    await request(t.server).get(`${path('nobody')}?limit=0`).expect(401);
  });

  it('is parsed by the official SDK (`subscribers.notifications.feed`)', async () => {
    await t.app.listen(0, '127.0.0.1');
    const novu = new Novu({ secretKey: envA.apiKey, serverURL: await t.app.getUrl() });
    const { result } = await novu.subscribers.notifications.feed({ subscriberId: 'alice', read: false, limit: 2, page: 0 });
    expect(result).toMatchObject({ totalCount: 3, hasMore: true, page: 0, pageSize: 2 });
    expect(result.data.map((item) => item.id)).toEqual(pick(3, 2));
    const filtered = await novu.subscribers.notifications.feed({ subscriberId: 'alice', payload: base64Json({ orderId: '1' }) });
    expect(filtered.result.data.map((item) => item.id)).toEqual(pick(0));
    expect(filtered.result.data[0].subscriber?.subscriberId).toBe('alice');
  });
});
