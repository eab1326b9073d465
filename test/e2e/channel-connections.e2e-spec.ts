import { Novu } from '@novu/api';
import request from 'supertest';
import { ChannelConnectionsService, NotificationsDatabase } from '../../lib';
import { generateId } from '../../lib/common/id';
import { ADAPTERS, useTestApp } from '../fixtures/app';
import { createChannelConnection, type SeededChannelConnection, seedChannelConnections, seedManyChannelConnections } from '../fixtures/channel-connection.factory';
import { createEnvironment, type TestEnvironment } from '../fixtures/factories';

const PATH = '/v1/channel-connections';
const ORDERS = [
  { orderBy: 'createdAt', orderDirection: 'ASC' },
  { orderBy: 'createdAt', orderDirection: 'DESC' },
  { orderBy: 'updatedAt', orderDirection: 'ASC' },
  { orderBy: 'updatedAt', orderDirection: 'DESC' },
] as const;

/** Every key of the contract's GetChannelConnectionResponseDto that must be present. */
const REQUIRED_ITEM_KEYS = ['identifier', 'channel', 'providerId', 'integrationIdentifier', 'subscriberId', 'contextKeys', 'workspace', 'auth', 'createdAt', 'updatedAt'];

type Query = Record<string, string | number | boolean | string[]>;
interface Page {
  data: Array<{ _id: string; identifier: string } & Record<string, unknown>>;
  next: string | null;
  previous: string | null;
  totalCount: number;
  totalCountCapped: boolean;
}

/**
 * 260 connections whose sort keys tie in groups (created_at shared by 12 consecutive rows, updated_at by
 * every 20th row, so every filter below still selects many ties) and whose ids are shuffled against that
 * order: only the id tie-break makes pages stable.
 */
function buildWalkRows(): SeededChannelConnection[] {
  const base = Date.parse('2026-03-01T00:00:00.000Z');
  const ids = Array.from({ length: 260 }, () => generateId());
  // A deterministic shuffle (LCG), so a failure reproduces.
  let seed = 42;
  for (let i = ids.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  const contexts = [[], ['tenant:a'], ['region:eu', 'tenant:a'], ['tenant:b']];
  const providers = [
    { channel: 'chat', providerId: 'slack' },
    { channel: 'chat', providerId: 'msteams' },
    { channel: 'push', providerId: 'fcm' },
  ] as const;
  return ids.map((id, i) => ({
    id,
    identifier: `walk-${String(i).padStart(3, '0')}`,
    createdAt: new Date(base + Math.floor(i / 12) * 1000),
    updatedAt: new Date(base + (i % 20) * 1000),
    ...providers[i % 3],
    integrationIdentifier: i % 5 === 0 ? 'slack-prod' : 'slack-dev',
    subscriberId: i % 4 === 0 ? null : `sub-${i % 3}`,
    contextKeys: contexts[i % 4],
  }));
}

/** The rows a filter selects, in the order a page walk must return them. */
function expectedOrder(rows: SeededChannelConnection[], filter: (row: SeededChannelConnection) => boolean, orderBy: 'createdAt' | 'updatedAt', direction: 'ASC' | 'DESC'): string[] {
  const sign = direction === 'ASC' ? 1 : -1;
  return rows
    .filter(filter)
    .sort((a, b) => sign * (a[orderBy].getTime() - b[orderBy].getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)))
    .map((row) => row.id);
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

describe.each(ADAPTERS)('GET /v1/channel-connections (%s)', (adapter) => {
  let envA: TestEnvironment;
  let envB: TestEnvironment;
  let envWalk: TestEnvironment;
  let walkRows: SeededChannelConnection[];
  // The session callback is built before the environments exist; it reads this at request time.
  let sessionEnvironment: { organizationId: string; environmentId: string } | undefined;
  const t = useTestApp(adapter, {
    options: { sessionAuth: async (token) => (token === 'session-token' ? (sessionEnvironment ?? null) : null) },
  });

  const list = (env: TestEnvironment, query: Query = {}) => request(t.server).get(PATH).query(query).set(env.auth);
  const listOk = async (env: TestEnvironment, query: Query = {}): Promise<Page> => (await list(env, query).expect(200)).body as Page;

  beforeAll(async () => {
    envA = await createEnvironment(t.moduleRef, 'A');
    envB = await createEnvironment(t.moduleRef, 'B');
    envWalk = await createEnvironment(t.moduleRef, 'Walk');
    sessionEnvironment = { organizationId: envA.organizationId, environmentId: envA.environmentId };

    // Environment A: a few connections made through the service, oldest first.
    await createChannelConnection(t.moduleRef, envA.environmentId, {
      identifier: 'acme-slack',
      subscriberId: 'ada',
      contextKeys: ['tenant:acme', 'region:eu', 'tenant:acme'],
      workspace: { id: 'T001', name: 'Acme' },
      auth: { accessToken: 'xoxb-secret-1', refreshToken: 'xoxe-refresh-1', expiresAt: '2026-06-15T12:00:00.000Z' },
    });
    await createChannelConnection(t.moduleRef, envA.environmentId, {
      identifier: 'shared-teams',
      providerId: 'msteams',
      integrationIdentifier: 'teams-prod',
      workspace: { id: 'T002' },
      auth: { accessToken: 'teams-secret-2' },
    });
    await createChannelConnection(t.moduleRef, envA.environmentId, {
      identifier: 'grace-push',
      channel: 'push',
      providerId: 'fcm',
      integrationIdentifier: 'fcm-prod',
      subscriberId: 'grace',
      contextKeys: ['tenant:acme'],
      auth: { accessToken: 'fcm-secret-3' },
    });
    await createChannelConnection(t.moduleRef, envB.environmentId, { identifier: 'b-only', subscriberId: 'ada' });

    walkRows = buildWalkRows();
    await seedChannelConnections(t.moduleRef, envWalk.environmentId, walkRows);
  });

  describe('success shape', () => {
    it('answers 200 with the contract\'s list object, newest first, every required field present', async () => {
      const res = await list(envA).expect(200);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      const body = res.body as Page;
      expect(Object.keys(body).sort()).toEqual(['data', 'next', 'previous', 'totalCount', 'totalCountCapped']);
      expect(body).toMatchObject({ next: null, previous: null, totalCount: 3, totalCountCapped: false });
      expect(body.data.map((item) => item.identifier)).toEqual(['grace-push', 'shared-teams', 'acme-slack']);
      for (const item of body.data) {
        for (const key of REQUIRED_ITEM_KEYS) expect(item).toHaveProperty(key);
        expect(typeof item._id).toBe('string');
        expect(new Date(item.createdAt as string).toISOString()).toBe(item.createdAt);
        expect(new Date(item.updatedAt as string).toISOString()).toBe(item.updatedAt);
        // API-key callers get the required accessToken, redacted, and nothing else of the tokens.
        expect(item.auth).toEqual({ accessToken: '' });
      }
      const [push, teams, slack] = body.data;
      expect(slack).toEqual({
        _id: expect.any(String),
        identifier: 'acme-slack',
        channel: 'chat',
        providerId: 'slack',
        integrationIdentifier: 'slack-prod',
        subscriberId: 'ada',
        // Stored sorted and deduplicated.
        contextKeys: ['region:eu', 'tenant:acme'],
        workspace: { id: 'T001', name: 'Acme' },
        auth: { accessToken: '' },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      // Nullable fields are present with null; optional ones are omitted, never null.
      expect(teams.subscriberId).toBeNull();
      expect(teams.contextKeys).toEqual([]);
      expect(teams.workspace).toEqual({ id: 'T002' });
      expect(push).toMatchObject({ channel: 'push', providerId: 'fcm', subscriberId: 'grace', contextKeys: ['tenant:acme'] });
    });

    it('emits null for a connection without channel, provider or integration', async () => {
      const env = await createEnvironment(t.moduleRef, 'nulls');
      await seedChannelConnections(t.moduleRef, env.environmentId, [
        {
          id: generateId(),
          identifier: 'bare',
          createdAt: new Date(),
          updatedAt: new Date(),
          channel: null,
          providerId: null,
          integrationIdentifier: null,
          subscriberId: null,
          contextKeys: [],
        },
      ]);
      const body = await listOk(env);
      expect(body.data).toHaveLength(1);
      expect(body.data[0]).toMatchObject({ channel: null, providerId: null, integrationIdentifier: null, subscriberId: null, contextKeys: [], auth: { accessToken: '' } });
    });

    it('gives session (Bearer) callers the decrypted tokens', async () => {
      const res = await request(t.server).get(PATH).query({ subscriberId: 'ada' }).set('Authorization', 'Bearer session-token').expect(200);
      expect(res.body.data).toHaveLength(1);
      expect(res.body.data[0].auth).toEqual({ accessToken: 'xoxb-secret-1', refreshToken: 'xoxe-refresh-1', expiresAt: '2026-06-15T12:00:00.000Z' });
      const teams = await request(t.server).get(PATH).query({ providerId: 'msteams' }).set('Authorization', 'Bearer session-token').expect(200);
      expect(teams.body.data[0].auth).toEqual({ accessToken: 'teams-secret-2' });
    });

    it('is parsed by the official SDK (@novu/api), filters and cursors included', async () => {
      await t.app.listen(0, '127.0.0.1');
      const serverURL = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
      const novu = new Novu({ secretKey: envWalk.apiKey, serverURL, retryConfig: { strategy: 'none' } });
      const first = await novu.channelConnections.list({ limit: 5, contextKeys: ['tenant:a', 'region:eu'], orderDirection: 'ASC' });
      const expected = expectedOrder(walkRows, (r) => r.contextKeys.join() === 'region:eu,tenant:a', 'createdAt', 'ASC');
      expect(first.result.totalCount).toBe(expected.length);
      expect(first.result.data.map((item) => item.identifier)).toEqual(
        expected.slice(0, 5).map((id) => walkRows.find((r) => r.id === id)!.identifier),
      );
      expect(first.result.next).toBe(expected[4]);
      const second = await novu.channelConnections.list({ limit: 5, contextKeys: ['tenant:a', 'region:eu'], orderDirection: 'ASC', after: first.result.next! });
      expect(second.result.previous).toBe(expected[5]);
      expect(second.result.data[0].auth.accessToken).toBe('');
    });
  });

  describe('limit', () => {
    it('defaults to 10', async () => {
      const body = await listOk(envWalk);
      expect(body.data).toHaveLength(10);
      expect(body.totalCount).toBe(260);
      expect(body.next).toBe(body.data[9]._id);
      expect(body.previous).toBeNull();
    });

    it('accepts 1 and 100', async () => {
      expect((await listOk(envWalk, { limit: 1 })).data).toHaveLength(1);
      expect((await listOk(envWalk, { limit: 100 })).data).toHaveLength(100);
    });

    it.each(['0', '101', 'abc', '-1', '2.5', ''])('refuses limit=%p with a 422 naming the field', async (limit) => {
      const res = await list(envWalk, { limit }).expect(422);
      expect(res.body).toMatchObject({ statusCode: 422, path: expect.stringContaining(PATH), error: 'Unprocessable Entity' });
      expect(res.body.errors.limit.messages.length).toBeGreaterThan(0);
      expect(typeof res.body.timestamp).toBe('string');
    });
  });

  describe('bad input', () => {
    it('refuses before and after together', async () => {
      const [a, b] = (await listOk(envWalk, { limit: 2 })).data;
      const res = await list(envWalk, { after: a._id, before: b._id }).expect(422);
      expect(res.body.errors).toHaveProperty('before');
      expect(res.body.errors).toHaveProperty('after');
    });

    it.each([
      ['orderDirection', 'down'],
      ['orderDirection', 'asc'],
      ['orderBy', 'identifier'],
      ['channel', 'fax'],
      ['providerId', 'carrier-pigeon'],
      ['includeCursor', 'yes'],
    ])('refuses %s=%p with a 422', async (field, value) => {
      const res = await list(envWalk, { [field]: value }).expect(422);
      expect(res.body.errors[field]).toMatchObject({ messages: expect.any(Array), value });
    });

    it('refuses a repeated scalar parameter without a 500', async () => {
      const res = await request(t.server).get(`${PATH}?subscriberId=a&subscriberId=b&limit=1&limit=2`).set(envWalk.auth).expect(422);
      expect(res.body.errors).toHaveProperty('subscriberId');
      expect(res.body.errors).toHaveProperty('limit');
    });

    it('answers an unknown cursor with the empty page', async () => {
      for (const cursor of ['after', 'before']) {
        const body = await listOk(envWalk, { [cursor]: generateId() });
        expect(body).toEqual({ data: [], next: null, previous: null, totalCount: 0, totalCountCapped: false });
      }
    });

    it.each(['not-an-id', '1234', "' OR 1=1 --", 'zzzzzzzzzzzzzzzzzzzzzzzz'])('answers a malformed cursor %p with the empty page', async (cursor) => {
      const body = await listOk(envWalk, { after: cursor });
      expect(body).toEqual({ data: [], next: null, previous: null, totalCount: 0, totalCountCapped: false });
    });
  });

  describe('cursors', () => {
    it('includeCursor makes the bound inclusive, after and before', async () => {
      const ids = expectedOrder(walkRows, () => true, 'createdAt', 'DESC');
      const after = await listOk(envWalk, { after: ids[20], includeCursor: true, limit: 5 });
      expect(after.data.map((i) => i._id)).toEqual(ids.slice(20, 25));
      expect(after.previous).toBe(ids[20]);
      expect(after.next).toBe(ids[24]);
      const exclusive = await listOk(envWalk, { after: ids[20], limit: 5 });
      expect(exclusive.data.map((i) => i._id)).toEqual(ids.slice(21, 26));
      const before = await listOk(envWalk, { before: ids[20], includeCursor: 'true', limit: 5 });
      expect(before.data.map((i) => i._id)).toEqual(ids.slice(16, 21));
      expect(before.next).toBe(ids[20]);
      expect(before.previous).toBe(ids[16]);
      const beforeExclusive = await listOk(envWalk, { before: ids[20], includeCursor: 'false', limit: 5 });
      expect(beforeExclusive.data.map((i) => i._id)).toEqual(ids.slice(15, 20));
    });

    it('counts the whole filter whatever the cursor', async () => {
      const ids = expectedOrder(walkRows, () => true, 'createdAt', 'DESC');
      expect((await listOk(envWalk, { after: ids[100] })).totalCount).toBe(260);
      // Past the last item: an empty page that still counts, with no cursors.
      expect(await listOk(envWalk, { after: ids[259] })).toEqual({ data: [], next: null, previous: null, totalCount: 260, totalCountCapped: false });
    });

    it('accepts an upper-case cursor id', async () => {
      const ids = expectedOrder(walkRows, () => true, 'createdAt', 'DESC');
      const body = await listOk(envWalk, { after: ids[0].toUpperCase(), limit: 1 });
      expect(body.data.map((i) => i._id)).toEqual([ids[1]]);
    });
  });

  describe('filters', () => {
    it('by subscriberId, channel, providerId and integrationIdentifier', async () => {
      expect((await listOk(envA, { subscriberId: 'ada' })).data.map((i) => i.identifier)).toEqual(['acme-slack']);
      expect((await listOk(envA, { channel: 'push' })).data.map((i) => i.identifier)).toEqual(['grace-push']);
      expect((await listOk(envA, { channel: 'chat' })).data.map((i) => i.identifier)).toEqual(['shared-teams', 'acme-slack']);
      expect((await listOk(envA, { providerId: 'msteams' })).data.map((i) => i.identifier)).toEqual(['shared-teams']);
      expect((await listOk(envA, { integrationIdentifier: 'fcm-prod' })).data.map((i) => i.identifier)).toEqual(['grace-push']);
      expect((await listOk(envA, { providerId: 'sendgrid' })).totalCount).toBe(0);
      expect((await listOk(envA, { subscriberId: 'nobody' })).data).toEqual([]);
      const combined = await listOk(envA, { channel: 'chat', providerId: 'slack', subscriberId: 'ada', integrationIdentifier: 'slack-prod' });
      expect(combined.data.map((i) => i.identifier)).toEqual(['acme-slack']);
    });

    it('by contextKeys: the exact set, in any order, as repeated keys or a single value', async () => {
      const ids = (body: Page) => body.data.map((i) => i.identifier);
      expect(ids(await listOk(envA, { contextKeys: ['tenant:acme', 'region:eu'] }))).toEqual(['acme-slack']);
      expect(ids(await listOk(envA, { contextKeys: ['region:eu', 'tenant:acme'] }))).toEqual(['acme-slack']);
      // Duplicates in the query do not change the set.
      expect(ids(await listOk(envA, { contextKeys: ['tenant:acme', 'region:eu', 'region:eu'] }))).toEqual(['acme-slack']);
      // A subset is not a match: `tenant:acme` alone selects only the connection with exactly that context.
      expect(ids(await listOk(envA, { contextKeys: 'tenant:acme' }))).toEqual(['grace-push']);
      expect(ids(await listOk(envA, { contextKeys: ['tenant:acme'] }))).toEqual(['grace-push']);
      expect(ids(await listOk(envA, { contextKeys: ['region:eu'] }))).toEqual([]);
      expect(ids(await listOk(envA, { contextKeys: ['tenant:acme', 'region:eu', 'region:us'] }))).toEqual([]);
    });

    it('by contextKeys: an empty value selects the connections without context', async () => {
      const res = await request(t.server).get(`${PATH}?contextKeys=`).set(envA.auth).expect(200);
      expect(res.body.data.map((i: { identifier: string }) => i.identifier)).toEqual(['shared-teams']);
      // Empty values beside real ones are dropped.
      const mixed = await request(t.server).get(`${PATH}?contextKeys=&contextKeys=tenant:acme`).set(envA.auth).expect(200);
      expect(mixed.body.data.map((i: { identifier: string }) => i.identifier)).toEqual(['grace-push']);
    });
  });

  describe('tenant isolation', () => {
    it('never shows another environment\'s connections', async () => {
      const body = await listOk(envB);
      expect(body.data.map((i) => i.identifier)).toEqual(['b-only']);
      expect(body.totalCount).toBe(1);
      expect((await listOk(envB, { subscriberId: 'ada' })).data.map((i) => i.identifier)).toEqual(['b-only']);
    });

    it('treats another environment\'s id as an unknown cursor', async () => {
      const aIds = (await listOk(envA)).data.map((i) => i._id);
      for (const cursor of ['after', 'before']) {
        for (const includeCursor of [false, true]) {
          const body = await listOk(envB, { [cursor]: aIds[1], includeCursor });
          expect(body).toEqual({ data: [], next: null, previous: null, totalCount: 0, totalCountCapped: false });
        }
      }
    });
  });

  describe('authentication', () => {
    it('answers 401 without credentials, with a bad scheme and with an unknown key', async () => {
      const missing = await request(t.server).get(PATH).expect(401);
      expect(missing.body).toMatchObject({ statusCode: 401, message: 'Missing authorization header', path: PATH });
      const scheme = await request(t.server).get(PATH).set('Authorization', 'Basic abc').expect(401);
      expect(scheme.body.message).toBe('Invalid authentication scheme: "Basic"');
      const unknown = await request(t.server).get(PATH).set('Authorization', 'ApiKey nope').expect(401);
      expect(unknown.body.message).toBe('API Key not found');
      await request(t.server).get(PATH).set('Authorization', 'Bearer wrong').expect(401);
    });
  });

  describe('pagination walk (260 rows with tied sort keys)', () => {
    const FILTERS: Array<{ name: string; query: Query; matches: (row: SeededChannelConnection) => boolean; limit: number }> = [
      { name: 'no filter', query: {}, matches: () => true, limit: 10 },
      { name: 'subscriberId', query: { subscriberId: 'sub-1' }, matches: (r) => r.subscriberId === 'sub-1', limit: 7 },
      { name: 'channel', query: { channel: 'push' }, matches: (r) => r.channel === 'push', limit: 7 },
      { name: 'providerId', query: { providerId: 'msteams' }, matches: (r) => r.providerId === 'msteams', limit: 7 },
      { name: 'integrationIdentifier', query: { integrationIdentifier: 'slack-prod' }, matches: (r) => r.integrationIdentifier === 'slack-prod', limit: 6 },
      { name: 'contextKeys', query: { contextKeys: ['tenant:a', 'region:eu'] }, matches: (r) => r.contextKeys.join() === 'region:eu,tenant:a', limit: 9 },
      { name: 'contextKeys empty', query: { contextKeys: '' }, matches: (r) => r.contextKeys.length === 0, limit: 8 },
    ];

    /** Follows `next` from the first page; checks every page's cursors on the way. */
    async function walkForward(query: Query, limit: number, total: number): Promise<string[]> {
      const seen: string[] = [];
      let after: string | undefined;
      for (let pages = 0; pages <= total / limit + 1; pages++) {
        const body = await listOk(envWalk, { ...query, limit, ...(after && { after }) });
        expect(body.totalCount).toBe(total);
        expect(body.data.length).toBeLessThanOrEqual(limit);
        const ids = body.data.map((i) => i._id);
        expect(body.previous).toBe(after ? ids[0] : null);
        seen.push(...ids);
        if (!body.next) {
          expect(seen).toHaveLength(total);
          return seen;
        }
        expect(body.data).toHaveLength(limit);
        expect(body.next).toBe(ids[ids.length - 1]);
        after = body.next;
      }
      throw new Error('the forward walk did not end');
    }

    /** Starts at the last item (`before` it, inclusive) and follows `previous` back to the start. */
    async function walkBackward(query: Query, limit: number, total: number, lastId: string): Promise<string[]> {
      const seen: string[] = [];
      let before = lastId;
      let includeCursor = true;
      for (let pages = 0; pages <= total / limit + 1; pages++) {
        const body = await listOk(envWalk, { ...query, limit, before, includeCursor });
        expect(body.totalCount).toBe(total);
        const ids = body.data.map((i) => i._id);
        // In before-mode `next` is the last item when anything follows it.
        expect(body.next).toBe(includeCursor ? null : ids[ids.length - 1]);
        seen.unshift(...ids);
        if (!body.previous) {
          expect(seen).toHaveLength(total);
          return seen;
        }
        expect(body.data).toHaveLength(limit);
        expect(body.previous).toBe(ids[0]);
        before = body.previous;
        includeCursor = false;
      }
      throw new Error('the backward walk did not end');
    }

    for (const filter of FILTERS) {
      it.each(ORDERS)(`${filter.name}: walks forward and backward by %p without skipping or repeating`, async ({ orderBy, orderDirection }) => {
        const expected = expectedOrder(walkRows, filter.matches, orderBy, orderDirection);
        expect(expected.length).toBeGreaterThan(filter.limit * 2);
        const query = { ...filter.query, orderBy, orderDirection };
        const forward = await walkForward(query, filter.limit, expected.length);
        expect(new Set(forward).size).toBe(forward.length);
        expect(forward).toEqual(expected);
        const backward = await walkBackward(query, filter.limit, expected.length, expected[expected.length - 1]);
        expect(backward).toEqual(expected);
        expect(sameSet(forward, backward)).toBe(true);
      });
    }
  });

  describe('totalCount cap', () => {
    it('counts 50,000 at most, exactly below', async () => {
      const capped = await createEnvironment(t.moduleRef, 'capped');
      const full = await createEnvironment(t.moduleRef, 'full');
      await seedManyChannelConnections(t.moduleRef, capped.environmentId, 50_001);
      await seedManyChannelConnections(t.moduleRef, full.environmentId, 50_000);
      const over = await listOk(capped, { limit: 3 });
      expect(over).toMatchObject({ totalCount: 50_000, totalCountCapped: true, previous: null });
      expect(over.data).toHaveLength(3);
      expect(over.next).toBe(over.data[2]._id);
      expect(await listOk(full, { limit: 1 })).toMatchObject({ totalCount: 50_000, totalCountCapped: false });
      // A filter counts its own matches, exactly (50 of the 50,001 rows carry subscriberId "needle").
      expect(await listOk(capped, { subscriberId: 'needle', limit: 1 })).toMatchObject({ totalCount: 50, totalCountCapped: false });
      // The cap never leaks across environments.
      expect((await listOk(envB)).totalCount).toBe(1);
    });
  });
});

describe('ChannelConnectionsService', () => {
  const t = useTestApp('fastify');
  let env: TestEnvironment;
  let service: ChannelConnectionsService;

  beforeAll(async () => {
    env = await createEnvironment(t.moduleRef, 'service');
    service = t.moduleRef.get(ChannelConnectionsService);
  });

  it('creates a connection with a generated identifier, its tokens encrypted at rest', async () => {
    const connection = await service.create(env.environmentId, {
      channel: 'chat',
      providerId: 'slack',
      integrationIdentifier: 'slack',
      contextKeys: ['tenant:b', 'tenant:a', 'tenant:b'],
      workspace: { id: 'T9' },
      auth: { accessToken: 'xoxb-plain' },
    });
    expect(connection.identifier).toMatch(/^slack-[0-9a-f]{12}$/);
    expect(connection.organizationId).toBe(env.organizationId);
    expect(connection.contextKeys).toEqual(['tenant:a', 'tenant:b']);
    const { rows } = await t.moduleRef
      .get(NotificationsDatabase)
      .query<{ auth_encrypted: string; context_keys: string[] }>('SELECT auth_encrypted, context_keys FROM ntf_channel_connection WHERE id = $1', [connection.id]);
    expect(rows[0].auth_encrypted).not.toContain('xoxb-plain');
    expect(rows[0].context_keys).toEqual(['tenant:a', 'tenant:b']);
    expect(service.decryptAuth(connection)).toEqual({ accessToken: 'xoxb-plain' });
    const page = await service.list(env.environmentId, { contextKeys: ['tenant:b', 'tenant:a'] }, { revealTokens: true });
    expect(page.data.map((item) => item.auth)).toEqual([{ accessToken: 'xoxb-plain' }]);
  });

  it('refuses malformed input and a duplicate identifier with RequestValidationException', async () => {
    await expect(
      service.create(env.environmentId, {
        channel: 'fax' as never,
        providerId: 'nope' as never,
        integrationIdentifier: '',
        workspace: {} as never,
        auth: {} as never,
      }),
    ).rejects.toMatchObject({
      errors: {
        channel: expect.anything(),
        providerId: expect.anything(),
        integrationIdentifier: expect.anything(),
        'workspace.id': expect.anything(),
        'auth.accessToken': expect.anything(),
      },
    });
    const input = { identifier: 'dup', channel: 'chat', providerId: 'slack', integrationIdentifier: 'slack', workspace: { id: 'T' }, auth: { accessToken: 'x' } } as const;
    await service.create(env.environmentId, input);
    await expect(service.create(env.environmentId, input)).rejects.toMatchObject({ errors: { identifier: expect.anything() } });
  });

  it('validates list queries of programmatic callers too', async () => {
    await expect(service.list(env.environmentId, { limit: 0 })).rejects.toMatchObject({ errors: { limit: expect.anything() } });
    await expect(service.list(env.environmentId, { limit: 101 })).rejects.toMatchObject({ errors: { limit: expect.anything() } });
    await expect(service.list(env.environmentId, { orderBy: 'name' as never })).rejects.toMatchObject({ errors: { orderBy: expect.anything() } });
    await expect(service.list(env.environmentId, { after: generateId(), before: generateId() })).rejects.toMatchObject({ errors: { before: expect.anything() } });
    const page = await service.list(env.environmentId);
    expect(page.data.every((item) => item.auth.accessToken === '' && Object.keys(item.auth).length === 1)).toBe(true);
  });

  it('answers one request with a single SQL statement', async () => {
    const db = t.moduleRef.get(NotificationsDatabase);
    const spy = jest.spyOn(db, 'query');
    try {
      const first = await service.list(env.environmentId, { limit: 1 });
      await service.list(env.environmentId, { limit: 1, after: first.next ?? undefined, orderBy: 'updatedAt', orderDirection: 'ASC' });
      expect(spy).toHaveBeenCalledTimes(2);
      for (const [text] of spy.mock.calls) {
        expect(text).not.toMatch(/\bOFFSET\b/i);
        expect(text).toMatch(/environment_id = \$1/);
      }
    } finally {
      spy.mockRestore();
    }
  });
});
