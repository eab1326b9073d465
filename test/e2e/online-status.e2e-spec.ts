import { Novu } from '@novu/api';
import { SubscriberResponseDto$inboundSchema } from '@novu/api/models/components';
import { ObjectId } from 'bson';
import request from 'supertest';
import { SubscribersService } from '../../lib';
import { ADAPTERS, useTestApp } from '../fixtures/app';
import { createEnvironment, createIntegration, createSubscriber, type TestEnvironment } from '../fixtures/factories';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Checks a response body against the contract's `SubscriberResponseDto`, and against the SDK's own schema. */
function expectSubscriberShape(body: Record<string, unknown>): void {
  for (const key of ['subscriberId', '_organizationId', '_environmentId', 'deleted', 'createdAt', 'updatedAt']) {
    expect(body).toHaveProperty(key);
  }
  // Nullable fields are present (possibly null); `_id` and `__v` are optional but never null.
  for (const key of ['firstName', 'lastName', 'email', 'phone', 'avatar', 'locale', 'timezone', 'data', 'isOnline', 'lastOnlineAt']) {
    expect(body).toHaveProperty(key);
  }
  expect(typeof body._id).toBe('string');
  expect(typeof body.__v).toBe('number');
  expect(body.deleted).toBe(false);
  expect(body.createdAt).toMatch(ISO);
  expect(body.updatedAt).toMatch(ISO);
  expect(Array.isArray(body.channels)).toBe(true);
  const parsed = SubscriberResponseDto$inboundSchema.safeParse(body);
  expect(parsed.error?.issues ?? []).toEqual([]);
}

describe.each(ADAPTERS)('PATCH /v1/subscribers/{subscriberId}/online-status (%s)', (adapter) => {
  const t = useTestApp(adapter);
  let envA: TestEnvironment;
  let envB: TestEnvironment;
  let slackIntegrationId: string;

  const path = (subscriberId: string) => `/v1/subscribers/${encodeURIComponent(subscriberId)}/online-status`;
  const patch = (env: TestEnvironment, subscriberId: string, body: unknown) =>
    request(t.server).patch(path(subscriberId)).set(env.auth).send(body as object);
  const stored = (env: TestEnvironment, subscriberId: string) => t.moduleRef.get(SubscribersService).findOne(env.environmentId, subscriberId);

  beforeAll(async () => {
    envA = await createEnvironment(t.moduleRef, 'A');
    envB = await createEnvironment(t.moduleRef, 'B');
    const slack = await createIntegration(t.moduleRef, envA.environmentId, { name: 'Slack', identifier: 'slack', providerId: 'slack', channel: 'chat', credentials: {} });
    slackIntegrationId = slack.id;
    await createSubscriber(t.moduleRef, envA.environmentId, {
      subscriberId: 'alice',
      firstName: 'Alice',
      email: 'alice@example.com',
      data: { plan: 'pro' },
      channels: [{ providerId: 'slack', credentials: { webhookUrl: 'https://hooks.example.com/alice' } }],
    });
    await createSubscriber(t.moduleRef, envA.environmentId, { subscriberId: 'carol' });
    await createSubscriber(t.moduleRef, envA.environmentId, { subscriberId: 'only-in-a' });
  });

  describe('success', () => {
    it('answers 200 with the whole subscriber in the contract shape', async () => {
      const res = await patch(envA, 'alice', { isOnline: true }).expect(200);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expectSubscriberShape(res.body);
      expect(res.body).toMatchObject({
        subscriberId: 'alice',
        _environmentId: envA.environmentId,
        _organizationId: envA.organizationId,
        firstName: 'Alice',
        lastName: null,
        email: 'alice@example.com',
        data: { plan: 'pro' },
        isOnline: true,
        lastOnlineAt: null,
        deleted: false,
      });
      expect(res.body.channels).toEqual([
        { providerId: 'slack', credentials: { webhookUrl: 'https://hooks.example.com/alice' }, _integrationId: slackIntegrationId },
      ]);
    });

    it('increments __v on every update', async () => {
      const before = (await stored(envA, 'carol')).version;
      const first = await patch(envA, 'carol', { isOnline: true }).expect(200);
      const second = await patch(envA, 'carol', { isOnline: true }).expect(200);
      const third = await patch(envA, 'carol', { isOnline: false }).expect(200);
      expect([first.body.__v, second.body.__v, third.body.__v]).toEqual([before + 1, before + 2, before + 3]);
      expect(new Date(third.body.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(first.body.updatedAt).getTime());
    });

    it('going offline sets lastOnlineAt; going online keeps it', async () => {
      const offline = await patch(envA, 'alice', { isOnline: false }).expect(200);
      expect(offline.body.isOnline).toBe(false);
      expect(typeof offline.body.lastOnlineAt).toBe('string');
      expect(offline.body.lastOnlineAt).toMatch(ISO);
      expect(Math.abs(Date.now() - new Date(offline.body.lastOnlineAt).getTime())).toBeLessThan(60_000);
      const online = await patch(envA, 'alice', { isOnline: true }).expect(200);
      expect(online.body).toMatchObject({ isOnline: true, lastOnlineAt: offline.body.lastOnlineAt });
      expectSubscriberShape(online.body);
    });

    it('ignores unknown body keys', async () => {
      const res = await patch(envA, 'alice', { isOnline: true, firstName: 'Mallory' }).expect(200);
      expect(res.body.firstName).toBe('Alice');
    });

    it('works through the official SDK (updateOnlineFlag), which validates the response strictly', async () => {
      await t.app.listen(0, '127.0.0.1');
      const novu = new Novu({ secretKey: envA.apiKey, serverURL: (await t.app.getUrl()).replace('[::1]', '127.0.0.1'), retryConfig: { strategy: 'none' } });
      const { result } = await novu.subscribers.properties.updateOnlineFlag({ isOnline: false }, 'alice');
      expect(result).toMatchObject({ subscriberId: 'alice', isOnline: false, deleted: false });
    });
  });

  describe('errors', () => {
    it('answers 404 Subscriber not found for an unknown subscriber', async () => {
      const res = await patch(envA, 'nobody', { isOnline: true }).expect(404);
      expect(res.body).toMatchObject({ statusCode: 404, message: 'Subscriber not found', error: 'Not Found', path: path('nobody') });
      expect(typeof res.body.timestamp).toBe('string');
    });

    const invalid: Array<[string, unknown, string]> = [
      ['isOnline missing', {}, 'isOnline should not be null or undefined'],
      ['isOnline null', { isOnline: null }, 'isOnline should not be null or undefined'],
      ['isOnline the string "true"', { isOnline: 'true' }, 'isOnline must be a boolean value'],
      ['isOnline a number', { isOnline: 1 }, 'isOnline must be a boolean value'],
    ];
    it.each(invalid)('answers 422 for %s', async (_name, body, message) => {
      const res = await patch(envA, 'alice', body).expect(422);
      expect(res.body).toMatchObject({ statusCode: 422, path: path('alice') });
      expect(typeof res.body.timestamp).toBe('string');
      expect(res.body.errors.isOnline.messages).toContain(message);
      // `value` echoes what was sent; an absent field has none (JSON drops undefined).
      if ('isOnline' in (body as object)) expect(res.body.errors.isOnline.value).toEqual((body as { isOnline: unknown }).isOnline);
    });

    it.each([['an array', '[{"isOnline":true}]'], ['a string', '"true"'], ['null', 'null']])(
      'answers a 4xx, never a 500, for a JSON body that is %s, without updating',
      async (_name, raw) => {
        const before = await stored(envA, 'carol');
        const res = await request(t.server).patch(path('carol')).set(envA.auth).set('Content-Type', 'application/json').send(raw);
        // Express's strict JSON parser refuses non-object bodies (400); Fastify parses them and validation refuses them (422).
        expect([400, 422]).toContain(res.status);
        expect(res.body.statusCode).toBe(res.status);
        expect((await stored(envA, 'carol')).version).toBe(before.version);
      },
    );

    it('answers 422 before 404: the body is checked first', async () => {
      await patch(envA, 'nobody', { isOnline: 'yes' }).expect(422);
    });

    it('answers 400 in the contract error shape for a body that is not JSON', async () => {
      const res = await request(t.server).patch(path('alice')).set(envA.auth).set('Content-Type', 'application/json').send('{bad').expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, path: path('alice') });
      expect(typeof res.body.timestamp).toBe('string');
      expect(res.body.message).toBeDefined();
    });

    it('answers 401 with the contract messages', async () => {
      const missing = await request(t.server).patch(path('alice')).send({ isOnline: true }).expect(401);
      expect(missing.body).toMatchObject({ statusCode: 401, message: 'Missing authorization header', path: path('alice') });
      expect(typeof missing.body.timestamp).toBe('string');
      const scheme = await request(t.server).patch(path('alice')).set('Authorization', 'Basic abc').send({ isOnline: true }).expect(401);
      expect(scheme.body.message).toBe('Invalid authentication scheme: "Basic"');
      const unknown = await request(t.server).patch(path('alice')).set('Authorization', 'ApiKey nope').send({ isOnline: true }).expect(401);
      expect(unknown.body.message).toBe('API Key not found');
    });
  });

  describe('SubscribersService.upsert', () => {
    it('refuses a subscriberId or email longer than an index entry allows, with a 422-class error instead of a database error', async () => {
      const service = t.app.get(SubscribersService);
      for (const input of [{ subscriberId: 'x'.repeat(256) }, { subscriberId: 'long-email', email: `${'e'.repeat(6000)}@example.com` }]) {
        await expect(service.upsert(envA.environmentId, input)).rejects.toMatchObject({ name: 'RequestValidationException' });
      }
      await expect(service.upsert(envA.environmentId, { subscriberId: 'y'.repeat(255), email: 'ok@example.com' })).resolves.toMatchObject({ subscriberId: 'y'.repeat(255) });
    });
  });

  describe('tenant isolation', () => {
    it('B\'s key gets 404 for A\'s subscriber, and A\'s row is unchanged', async () => {
      const before = await stored(envA, 'only-in-a');
      const res = await patch(envB, 'only-in-a', { isOnline: false }).expect(404);
      expect(res.body.message).toBe('Subscriber not found');
      const after = await stored(envA, 'only-in-a');
      expect(after).toMatchObject({ isOnline: before.isOnline, lastOnlineAt: before.lastOnlineAt, version: before.version });
      expect(after.updatedAt.getTime()).toBe(before.updatedAt.getTime());
    });
  });

  describe('idempotency', () => {
    it('replays the same key with the same body without bumping __v again', async () => {
      const key = `online-${new ObjectId().toHexString()}`;
      const first = await patch(envA, 'carol', { isOnline: false }).set('Idempotency-Key', key).expect(200);
      expect(first.headers['idempotency-key']).toBe(key);
      expect(first.headers['idempotency-replay']).toBeUndefined();
      const replay = await patch(envA, 'carol', { isOnline: false }).set('Idempotency-Key', key).expect(200);
      expect(replay.headers['idempotency-replay']).toBe('true');
      expect(replay.headers['idempotency-key']).toBe(key);
      expect(replay.headers['content-type']).toMatch(/application\/json/);
      expect(replay.body).toEqual(first.body);
      expect((await stored(envA, 'carol')).version).toBe(first.body.__v);
    });

    it('answers 422 for the same key with another body', async () => {
      const key = `online-${new ObjectId().toHexString()}`;
      await patch(envA, 'carol', { isOnline: true }).set('Idempotency-Key', key).expect(200);
      const res = await patch(envA, 'carol', { isOnline: false }).set('Idempotency-Key', key).expect(422);
      expect(res.body).toMatchObject({ statusCode: 422, message: `Request with key "${key}" is being reused for a different body` });
    });

    it('answers 400 for a key over 255 characters, without updating', async () => {
      const before = (await stored(envA, 'carol')).version;
      const res = await patch(envA, 'carol', { isOnline: true }).set('Idempotency-Key', 'k'.repeat(256)).expect(400);
      expect(res.body).toMatchObject({ statusCode: 400 });
      expect(typeof res.body.timestamp).toBe('string');
      expect((await stored(envA, 'carol')).version).toBe(before);
    });

    it('scopes keys per environment: B may use A\'s key for its own request', async () => {
      const key = `online-${new ObjectId().toHexString()}`;
      await createSubscriber(t.moduleRef, envB.environmentId, { subscriberId: 'carol' });
      await patch(envA, 'carol', { isOnline: true }).set('Idempotency-Key', key).expect(200);
      const inB = await patch(envB, 'carol', { isOnline: true }).set('Idempotency-Key', key).expect(200);
      expect(inB.headers['idempotency-replay']).toBeUndefined();
      expect(inB.body._environmentId).toBe(envB.environmentId);
    });
  });
});
