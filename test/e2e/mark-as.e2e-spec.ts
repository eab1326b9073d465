import { Novu } from '@novu/api';
import { MessageResponseDto$inboundSchema } from '@novu/api/models/components';
import { ObjectId } from 'bson';
import request from 'supertest';
import { MessagesService, NotificationsDatabase, RequestValidationException, type SubscriberEntity } from '../../lib';
import { ADAPTERS, useTestApp } from '../fixtures/app';
import { createEnvironment, createSubscriber, type TestEnvironment } from '../fixtures/factories';
import { createMessages, readMessages } from '../fixtures/message.factory';
import { statementsDuring } from '../fixtures/statements';

/** Required by the SDK's `MessageResponseDto` (reference/behavior.md §9.5). */
const REQUIRED = [
  '_environmentId', '_organizationId', '_notificationId', '_subscriberId', 'createdAt', 'transactionId', 'channel', 'read',
  'seen', 'cta', 'status',
];
/** Optional and nullable: always present, possibly null. */
const NULLABLE = ['_templateId', '_messageTemplateId', '_feedId', 'content'];
/** Optional but not nullable: omitted when unset, never null. */
const OMITTED_WHEN_UNSET = [
  'lastSeenDate', 'lastReadDate', 'subject', 'email', 'phone', 'providerId', 'title', 'templateIdentifier', 'errorId',
  'errorText', 'snoozedUntil', 'directWebhookUrl', 'deviceTokens', 'deliveredAt',
];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Checks one response item against the contract, and against the SDK's own (strict) schema. */
function expectMessageShape(message: Record<string, unknown>): void {
  for (const key of REQUIRED) expect(message).toHaveProperty(key);
  for (const key of NULLABLE) expect(message).toHaveProperty(key);
  for (const key of OMITTED_WHEN_UNSET) if (key in message) expect(message[key]).not.toBeNull();
  expect(message).not.toHaveProperty('template');
  expect(message).not.toHaveProperty('subscriber');
  expect(typeof message.cta).toBe('object');
  expect(message.cta).not.toBeNull();
  expect(message.createdAt).toMatch(ISO);
  const parsed = MessageResponseDto$inboundSchema.safeParse(message);
  expect(parsed.error?.issues ?? []).toEqual([]);
}

describe.each(ADAPTERS)('POST /v1/subscribers/{subscriberId}/messages/mark-as (%s)', (adapter) => {
  // No worker: its queue polling would land among the statements counted below.
  const t = useTestApp(adapter, { options: { worker: { enabled: false } } });
  let envA: TestEnvironment;
  let envB: TestEnvironment;
  let alice: SubscriberEntity;
  let bob: SubscriberEntity;
  let aliceInB: SubscriberEntity;

  const path = (subscriberId: string) => `/v1/subscribers/${encodeURIComponent(subscriberId)}/messages/mark-as`;
  const markAs = (env: TestEnvironment, subscriberId: string, body: unknown) =>
    request(t.server).post(path(subscriberId)).set(env.auth).send(body as object);

  beforeAll(async () => {
    envA = await createEnvironment(t.moduleRef, 'A');
    envB = await createEnvironment(t.moduleRef, 'B');
    alice = await createSubscriber(t.moduleRef, envA.environmentId, { subscriberId: 'alice' });
    bob = await createSubscriber(t.moduleRef, envA.environmentId, { subscriberId: 'bob' });
    aliceInB = await createSubscriber(t.moduleRef, envB.environmentId, { subscriberId: 'alice' });
  });

  describe('success', () => {
    it('read: sets read and seen and both dates, returns the updated messages oldest first in the contract shape', async () => {
      const [first, second, untouched] = await createMessages(t.moduleRef, alice, 3);
      const res = await markAs(envA, 'alice', { messageId: [second.id, first.id], markAs: 'read' }).expect(201);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body.map((m: { _id: string }) => m._id)).toEqual([first.id, second.id]);
      for (const message of res.body) {
        expectMessageShape(message);
        expect(message).toMatchObject({
          _environmentId: envA.environmentId,
          _organizationId: envA.organizationId,
          _subscriberId: alice.id,
          _notificationId: first.notificationId,
          transactionId: first.transactionId,
          channel: 'in_app',
          status: 'sent',
          read: true,
          seen: true,
          cta: {},
          content: 'Your order has shipped',
          _feedId: null,
          templateIdentifier: 'order-shipped',
          providerId: 'novu',
          payload: { orderId: '42' },
        });
        expect(message.lastReadDate).toMatch(ISO);
        expect(message.lastSeenDate).toMatch(ISO);
        // Unset optional fields are absent, not null.
        for (const key of ['subject', 'title', 'email', 'phone', 'errorId', 'errorText', 'snoozedUntil', 'directWebhookUrl']) {
          expect(message).not.toHaveProperty(key);
        }
      }
      const rows = await readMessages(t.moduleRef, [untouched.id]);
      expect(rows.get(untouched.id)).toMatchObject({ read: false, seen: false, lastReadDate: null, lastSeenDate: null });
    });

    it('seen: sets seen and lastSeenDate only', async () => {
      const [message] = await createMessages(t.moduleRef, alice, 1);
      const res = await markAs(envA, 'alice', { messageId: message.id, markAs: 'seen' }).expect(201);
      expect(res.body).toHaveLength(1);
      expectMessageShape(res.body[0]);
      expect(res.body[0]).toMatchObject({ _id: message.id, seen: true, read: false });
      expect(res.body[0].lastSeenDate).toMatch(ISO);
      expect(res.body[0]).not.toHaveProperty('lastReadDate');
    });

    it('unread: clears read, keeps seen and the last read date', async () => {
      const readAt = new Date('2026-01-02T03:04:05.678Z');
      const seenAt = new Date('2026-01-02T03:04:06.000Z');
      const [message] = await createMessages(t.moduleRef, alice, 1, { read: true, seen: true, lastReadDate: readAt, lastSeenDate: seenAt });
      const res = await markAs(envA, 'alice', { messageId: message.id, markAs: 'unread' }).expect(201);
      expectMessageShape(res.body[0]);
      expect(res.body[0]).toMatchObject({ read: false, seen: true, lastReadDate: readAt.toISOString(), lastSeenDate: seenAt.toISOString() });
    });

    it('unseen: clears seen, keeps read and the last seen date', async () => {
      const seenAt = new Date('2026-01-02T03:04:06.000Z');
      const [message] = await createMessages(t.moduleRef, alice, 1, { seen: true, lastSeenDate: seenAt });
      const res = await markAs(envA, 'alice', { messageId: message.id, markAs: 'unseen' }).expect(201);
      expectMessageShape(res.body[0]);
      expect(res.body[0]).toMatchObject({ read: false, seen: false, lastSeenDate: seenAt.toISOString() });
      expect(res.body[0]).not.toHaveProperty('lastReadDate');
    });

    it('read then unread then unseen keeps both dates of the read', async () => {
      const [message] = await createMessages(t.moduleRef, alice, 1);
      const read = await markAs(envA, 'alice', { messageId: message.id, markAs: 'read' }).expect(201);
      const unread = await markAs(envA, 'alice', { messageId: message.id, markAs: 'unread' }).expect(201);
      const unseen = await markAs(envA, 'alice', { messageId: message.id, markAs: 'unseen' }).expect(201);
      expect(unread.body[0]).toMatchObject({ read: false, seen: true, lastReadDate: read.body[0].lastReadDate });
      expect(unseen.body[0]).toMatchObject({
        read: false,
        seen: false,
        lastReadDate: read.body[0].lastReadDate,
        lastSeenDate: read.body[0].lastSeenDate,
      });
    });

    it('maps the optional fields that are set, content blocks and the CTA', async () => {
      const cta = { type: 'redirect' as const, data: { url: 'https://example.com/orders/42' }, action: { status: 'pending' as const, buttons: [{ type: 'primary' as const, content: 'Open' }] } };
      const content = [{ type: 'text' as const, content: 'Hello' }, { type: 'button' as const, content: 'Open', url: 'https://example.com', styles: { textAlign: 'center' as const } }];
      const [message] = await createMessages(t.moduleRef, alice, 1, {
        channel: 'email', subject: 'Shipped', title: 'Order', content, cta, feedId: new ObjectId().toHexString(), providerId: 'sendgrid',
      });
      const res = await markAs(envA, 'alice', { messageId: message.id, markAs: 'read' }).expect(201);
      expectMessageShape(res.body[0]);
      expect(res.body[0]).toMatchObject({ channel: 'email', subject: 'Shipped', title: 'Order', content, cta, _feedId: message.feedId, providerId: 'sendgrid' });
    });

    it('gives null, never absent, for the nullable fields when unset', async () => {
      const [message] = await createMessages(t.moduleRef, alice, 1, { workflowId: null, messageTemplateId: null, content: null, templateIdentifier: null, providerId: null });
      const res = await markAs(envA, 'alice', { messageId: message.id, markAs: 'seen' }).expect(201);
      expectMessageShape(res.body[0]);
      expect(res.body[0]).toMatchObject({ _templateId: null, _messageTemplateId: null, _feedId: null, content: null });
      expect(res.body[0]).not.toHaveProperty('templateIdentifier');
      expect(res.body[0]).not.toHaveProperty('providerId');
    });

    it('accepts a comma-separated string, with or without spaces', async () => {
      const [a, b, c] = await createMessages(t.moduleRef, alice, 3);
      const res = await markAs(envA, 'alice', { messageId: `${c.id},${a.id}, ${b.id}`, markAs: 'seen' }).expect(201);
      expect(res.body.map((m: { _id: string }) => m._id)).toEqual([a.id, b.id, c.id]);
      expect(res.body.every((m: { seen: boolean }) => m.seen)).toBe(true);
    });

    it('accepts upper-case ids and duplicates, returning each message once', async () => {
      const [a] = await createMessages(t.moduleRef, alice, 1);
      const res = await markAs(envA, 'alice', { messageId: [a.id.toUpperCase(), a.id], markAs: 'seen' }).expect(201);
      expect(res.body.map((m: { _id: string }) => m._id)).toEqual([a.id]);
    });

    it('marks 100 ids in one call with exactly one SQL statement (one UPDATE)', async () => {
      const messages = await createMessages(t.moduleRef, alice, 100);
      const ids = messages.map((m) => m.id);
      // Warm the API-key cache so that the counted request is the route's own work.
      await markAs(envA, 'alice', { messageId: ids[0], markAs: 'seen' }).expect(201);
      let res: request.Response | undefined;
      const statements = await statementsDuring(async () => {
        res = await markAs(envA, 'alice', { messageId: ids, markAs: 'read' }).expect(201);
      });
      expect(res?.body).toHaveLength(100);
      expect(res?.body.map((m: { _id: string }) => m._id)).toEqual(ids);
      expect(statements).toHaveLength(1);
      expect(statements[0].match(/\bUPDATE\s+ntf_message\b/gi)).toHaveLength(1);
      const rows = await readMessages(t.moduleRef, ids);
      expect([...rows.values()].every((m) => m.read && m.seen && m.lastReadDate && m.lastSeenDate)).toBe(true);
    });

    it('answers 201 [] when no id matches', async () => {
      const res = await markAs(envA, 'alice', { messageId: new ObjectId().toHexString(), markAs: 'read' }).expect(201);
      expect(res.body).toEqual([]);
    });

    it('skips unknown ids, other subscribers\' and other environments\' messages, leaving those unchanged', async () => {
      const [own] = await createMessages(t.moduleRef, alice, 1);
      const [bobs] = await createMessages(t.moduleRef, bob, 1);
      const [foreign] = await createMessages(t.moduleRef, aliceInB, 1);
      const unknown = new ObjectId().toHexString();
      const res = await markAs(envA, 'alice', { messageId: [unknown, bobs.id, foreign.id, own.id], markAs: 'read' }).expect(201);
      expect(res.body.map((m: { _id: string }) => m._id)).toEqual([own.id]);
      const rows = await readMessages(t.moduleRef, [bobs.id, foreign.id]);
      for (const id of [bobs.id, foreign.id]) {
        expect(rows.get(id)).toMatchObject({ read: false, seen: false, lastReadDate: null, lastSeenDate: null });
        expect(rows.get(id)?.updatedAt.getTime()).toBe((id === bobs.id ? bobs : foreign).updatedAt.getTime());
      }
    });

    it('works through the official SDK (markAllAs), which validates the response strictly', async () => {
      const [a, b] = await createMessages(t.moduleRef, alice, 2);
      await t.app.listen(0, '127.0.0.1');
      const novu = new Novu({ secretKey: envA.apiKey, serverURL: (await t.app.getUrl()).replace('[::1]', '127.0.0.1'), retryConfig: { strategy: 'none' } });
      const { result } = await novu.subscribers.messages.markAllAs({ messageId: [a.id, b.id], markAs: 'read' }, 'alice');
      expect(result.map((m) => m.id ?? (m as { _id?: string })._id)).toHaveLength(2);
      expect(result.every((m) => m.read && m.seen)).toBe(true);
    });
  });

  describe('validation (422)', () => {
    const validId = new ObjectId().toHexString();
    const cases: Array<[string, unknown, string, string]> = [
      ['messageId missing', { markAs: 'read' }, 'messageId', 'messageId is required'],
      ['messageId empty string', { messageId: '', markAs: 'read' }, 'messageId', 'messageId is required'],
      ['messageId empty array', { messageId: [], markAs: 'read' }, 'messageId', 'messageId is required'],
      ['messageId null', { messageId: null, markAs: 'read' }, 'messageId', 'messageId is required'],
      ['messageId a number', { messageId: 5, markAs: 'read' }, 'messageId', 'messageId must be a string or an array of strings'],
      ['messageId an object', { messageId: { id: validId }, markAs: 'read' }, 'messageId', 'messageId must be a string or an array of strings'],
      ['messageId an array with a number', { messageId: [validId, 7], markAs: 'read' }, 'messageId', 'messageId must be a string or an array of strings'],
      ['messageId malformed', { messageId: 'not-an-id', markAs: 'read' }, 'messageId', 'each value in messageId must be a mongodb id'],
      ['messageId list with a malformed id', { messageId: `${validId},abc`, markAs: 'read' }, 'messageId', 'each value in messageId must be a mongodb id'],
      ['messageId list with an empty item', { messageId: `${validId},`, markAs: 'read' }, 'messageId', 'each value in messageId must be a mongodb id'],
      ['messageId 25 hex', { messageId: [`${validId}a`], markAs: 'read' }, 'messageId', 'each value in messageId must be a mongodb id'],
      ['more than 1000 ids', { messageId: Array.from({ length: 1001 }, () => validId), markAs: 'read' }, 'messageId', 'messageId must contain at most 1000 ids'],
      ['markAs missing', { messageId: validId }, 'markAs', 'markAs should not be null or undefined'],
      ['markAs unknown', { messageId: validId, markAs: 'archived' }, 'markAs', 'markAs must be one of the following values: read, seen, unread, unseen'],
      ['markAs not a string', { messageId: validId, markAs: true }, 'markAs', 'markAs must be one of the following values: read, seen, unread, unseen'],
    ];

    it.each(cases)('%s', async (_name, body, field, message) => {
      const res = await markAs(envA, 'alice', body).expect(422);
      expect(res.body).toMatchObject({ statusCode: 422, path: path('alice') });
      expect(typeof res.body.timestamp).toBe('string');
      expect(res.body.errors[field].messages).toContain(message);
      expect(Object.keys(res.body.errors)).toEqual([field]);
    });

    it('reports both fields when both are wrong', async () => {
      const res = await markAs(envA, 'alice', { messageId: 'x', markAs: 'x' }).expect(422);
      expect(Object.keys(res.body.errors).sort()).toEqual(['markAs', 'messageId']);
      expect(res.body.errors.messageId).toEqual({ messages: ['each value in messageId must be a mongodb id'], value: 'x' });
    });

    it.each([['an array', '[]'], ['a string', '"read"'], ['a number', '42'], ['null', 'null']])(
      'answers a 4xx, never a 500, for a JSON body that is %s',
      async (_name, raw) => {
        const res = await request(t.server).post(path('alice')).set(envA.auth).set('Content-Type', 'application/json').send(raw);
        expect([400, 422]).toContain(res.status);
        expect(res.body.statusCode).toBe(res.status);
      },
    );

    it('validates before looking the subscriber up', async () => {
      await markAs(envA, 'nobody', { messageId: 'x', markAs: 'read' }).expect(422);
    });

    it('answers 400 in the contract error shape for a body that is not JSON', async () => {
      const res = await request(t.server).post(path('alice')).set(envA.auth).set('Content-Type', 'application/json').send('{bad').expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, path: path('alice') });
      expect(typeof res.body.timestamp).toBe('string');
      expect(res.body.message).toBeDefined();
    });

    it('the service refuses the same input when a host calls it directly', async () => {
      const service = t.moduleRef.get(MessagesService);
      await expect(service.markAs(envA.environmentId, 'alice', ['nope'], 'read')).rejects.toBeInstanceOf(RequestValidationException);
      await expect(service.markAs(envA.environmentId, 'alice', validId, 'archived' as never)).rejects.toBeInstanceOf(RequestValidationException);
    });
  });

  describe('errors', () => {
    it('answers 404 for a subscriber unknown in the environment', async () => {
      const res = await markAs(envA, 'nobody', { messageId: new ObjectId().toHexString(), markAs: 'read' }).expect(404);
      expect(res.body).toMatchObject({ statusCode: 404, message: 'Subscriber not found', error: 'Not Found', path: path('nobody') });
      expect(typeof res.body.timestamp).toBe('string');
    });

    it('answers 404 for a deleted subscriber', async () => {
      const ghost = await createSubscriber(t.moduleRef, envA.environmentId, { subscriberId: 'ghost' });
      const [message] = await createMessages(t.moduleRef, ghost, 1);
      await t.moduleRef.get(NotificationsDatabase).query('UPDATE ntf_subscriber SET deleted = true WHERE id = $1', [ghost.id]);
      await markAs(envA, 'ghost', { messageId: message.id, markAs: 'read' }).expect(404);
      expect((await readMessages(t.moduleRef, [message.id])).get(message.id)?.read).toBe(false);
    });

    it('answers 401 with the contract messages', async () => {
      const body = { messageId: new ObjectId().toHexString(), markAs: 'read' };
      const missing = await request(t.server).post(path('alice')).send(body).expect(401);
      expect(missing.body).toMatchObject({ statusCode: 401, message: 'Missing authorization header', path: path('alice') });
      const scheme = await request(t.server).post(path('alice')).set('Authorization', 'Basic abc').send(body).expect(401);
      expect(scheme.body.message).toBe('Invalid authentication scheme: "Basic"');
      const unknown = await request(t.server).post(path('alice')).set('Authorization', 'ApiKey nope').send(body).expect(401);
      expect(unknown.body.message).toBe('API Key not found');
    });
  });

  describe('tenant isolation', () => {
    it('B\'s key cannot mark A\'s messages, even with A\'s subscriberId and message ids', async () => {
      const messages = await createMessages(t.moduleRef, alice, 2);
      const [bobs] = await createMessages(t.moduleRef, bob, 1);
      const ids = [...messages.map((m) => m.id), bobs.id];
      // `alice` exists in B too: the request is valid there, and finds none of A's messages.
      const sameName = await markAs(envB, 'alice', { messageId: ids, markAs: 'read' }).expect(201);
      expect(sameName.body).toEqual([]);
      // `bob` exists only in A.
      const onlyInA = await markAs(envB, 'bob', { messageId: ids, markAs: 'read' }).expect(404);
      expect(onlyInA.body.message).toBe('Subscriber not found');
      const rows = await readMessages(t.moduleRef, ids);
      for (const id of ids) expect(rows.get(id)).toMatchObject({ read: false, seen: false, lastReadDate: null });
    });
  });

  describe('idempotency', () => {
    it('replays the same key with the same body, with Idempotency-Replay: true, without updating again', async () => {
      const [message] = await createMessages(t.moduleRef, alice, 1);
      const key = `mark-as-${new ObjectId().toHexString()}`;
      const body = { messageId: message.id, markAs: 'read' };
      const first = await markAs(envA, 'alice', body).set('Idempotency-Key', key).expect(201);
      expect(first.headers['idempotency-key']).toBe(key);
      expect(first.headers['idempotency-replay']).toBeUndefined();
      await markAs(envA, 'alice', { messageId: message.id, markAs: 'unread' }).expect(201);
      const replay = await markAs(envA, 'alice', body).set('Idempotency-Key', key).expect(201);
      expect(replay.headers['idempotency-replay']).toBe('true');
      expect(replay.headers['content-type']).toMatch(/application\/json/);
      expect(replay.body).toEqual(first.body);
      // The replay did not run the update: the unread in between still holds.
      expect((await readMessages(t.moduleRef, [message.id])).get(message.id)?.read).toBe(false);
    });

    it('answers 422 for the same key with another body', async () => {
      const [message] = await createMessages(t.moduleRef, alice, 1);
      const key = `mark-as-${new ObjectId().toHexString()}`;
      await markAs(envA, 'alice', { messageId: message.id, markAs: 'read' }).set('Idempotency-Key', key).expect(201);
      const res = await markAs(envA, 'alice', { messageId: message.id, markAs: 'seen' }).set('Idempotency-Key', key).expect(422);
      expect(res.body).toMatchObject({ statusCode: 422, message: `Request with key "${key}" is being reused for a different body` });
    });

    it('answers 400 for a key over 255 characters', async () => {
      const res = await markAs(envA, 'alice', { messageId: new ObjectId().toHexString(), markAs: 'read' }).set('Idempotency-Key', 'k'.repeat(256)).expect(400);
      expect(res.body.statusCode).toBe(400);
    });
  });
});
