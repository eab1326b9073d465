import { createHash } from 'node:crypto';
import { ObjectId } from 'bson';
import request from 'supertest';
import { NotificationsDatabase } from '../../lib';
import { ADAPTERS, useTestApp } from '../fixtures/app';
import { createEnvironment, createSubscriber, type TestEnvironment } from '../fixtures/factories';

/** The fingerprint the interceptor computes: method, path and JSON body. */
function fingerprintOf(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${JSON.stringify(body)}`).digest('hex');
}

describe.each(ADAPTERS)('Idempotency-Key on POST and PATCH (%s)', (adapter) => {
  const t = useTestApp(adapter);
  let env: TestEnvironment;
  let other: TestEnvironment;
  let sql: NotificationsDatabase;
  const path = '/v1/subscribers/ada/online-status';

  const versionOf = async (environmentId: string) =>
    (await sql.query<{ version: number }>('SELECT version FROM ntf_subscriber WHERE environment_id = $1 AND subscriber_id = $2', [environmentId, 'ada'])).rows[0].version;

  beforeAll(async () => {
    sql = t.moduleRef.get(NotificationsDatabase);
    env = await createEnvironment(t.moduleRef, 'A');
    other = await createEnvironment(t.moduleRef, 'B');
    await createSubscriber(t.moduleRef, env.environmentId, { subscriberId: 'ada' });
    await createSubscriber(t.moduleRef, other.environmentId, { subscriberId: 'ada' });
  });

  it('replays a completed request without running it again', async () => {
    const key = `replay-${adapter}`;
    const first = await request(t.server).patch(path).set(env.auth).set('Idempotency-Key', key).send({ isOnline: true }).expect(200);
    expect(first.headers['idempotency-key']).toBe(key);
    expect(first.headers['idempotency-replay']).toBeUndefined();
    const version = await versionOf(env.environmentId);
    const again = await request(t.server).patch(path).set(env.auth).set('Idempotency-Key', key).send({ isOnline: true }).expect(200);
    expect(again.headers['idempotency-replay']).toBe('true');
    expect(again.headers['idempotency-key']).toBe(key);
    expect(again.body).toEqual(first.body);
    expect(await versionOf(env.environmentId)).toBe(version);
  });

  it('refuses the same key with another body (422)', async () => {
    const key = `mismatch-${adapter}`;
    await request(t.server).patch(path).set(env.auth).set('Idempotency-Key', key).send({ isOnline: true }).expect(200);
    const res = await request(t.server).patch(path).set(env.auth).set('Idempotency-Key', key).send({ isOnline: false }).expect(422);
    expect(res.body).toMatchObject({ statusCode: 422, message: `Request with key "${key}" is being reused for a different body` });
  });

  it('answers 409 with Retry-After while the first request is in flight, and reclaims a crashed owner\'s key', async () => {
    const key = `inflight-${adapter}`;
    const body = { isOnline: false };
    await sql.query(
      `INSERT INTO ntf_idempotency_record (id, environment_id, key, fingerprint, status, locked_until, expires_at, created_at)
       VALUES ($1, $2, $3, $4, 'in_progress', now() + interval '5 minutes', now() + interval '1 day', now())`,
      [new ObjectId().toHexString(), env.environmentId, key, fingerprintOf('PATCH', path, body)],
    );
    const busy = await request(t.server).patch(path).set(env.auth).set('Idempotency-Key', key).send(body).expect(409);
    expect(busy.headers['retry-after']).toBe('1');
    expect(busy.body).toMatchObject({ statusCode: 409, error: 'Conflict', message: `Request with key "${key}" is currently being processed. Please retry after 1 second` });

    // The owner "crashed": once its lock is past, the key is taken over and the request runs.
    await sql.query(`UPDATE ntf_idempotency_record SET locked_until = now() - interval '1 second' WHERE key = $1`, [key]);
    const res = await request(t.server).patch(path).set(env.auth).set('Idempotency-Key', key).send(body).expect(200);
    expect(res.body.isOnline).toBe(false);
  });

  it('lets exactly one of two concurrent requests with one key run', async () => {
    const key = `concurrent-${adapter}`;
    const before = await versionOf(env.environmentId);
    const send = () => request(t.server).patch(path).set(env.auth).set('Idempotency-Key', key).send({ isOnline: true });
    const responses = await Promise.all([send(), send()]);
    const statuses = responses.map((r) => r.status).sort();
    expect([[200, 200], [200, 409]]).toContainEqual(statuses);
    expect(await versionOf(env.environmentId)).toBe(before + 1);
    const replay = responses.find((r) => r.headers['idempotency-replay'] === 'true');
    if (statuses[1] === 200) expect(replay).toBeDefined();
  });

  it('keeps keys per environment', async () => {
    const key = `shared-${adapter}`;
    await request(t.server).patch(path).set(env.auth).set('Idempotency-Key', key).send({ isOnline: true }).expect(200);
    const res = await request(t.server).patch(path).set(other.auth).set('Idempotency-Key', key).send({ isOnline: true }).expect(200);
    expect(res.headers['idempotency-replay']).toBeUndefined();
    expect(res.body._environmentId).toBe(other.environmentId);
  });

  it('replays a stored client error', async () => {
    const key = `error-${adapter}`;
    const first = await request(t.server).patch('/v1/subscribers/nobody/online-status').set(env.auth).set('Idempotency-Key', key).send({ isOnline: true }).expect(404);
    const again = await request(t.server).patch('/v1/subscribers/nobody/online-status').set(env.auth).set('Idempotency-Key', key).send({ isOnline: true }).expect(404);
    expect(again.headers['idempotency-replay']).toBe('true');
    expect(again.body.message).toBe(first.body.message);
  });

  it('refuses a key over 255 characters (400) and ignores the header on GET', async () => {
    const long = 'k'.repeat(256);
    const res = await request(t.server).patch(path).set(env.auth).set('Idempotency-Key', long).send({ isOnline: true }).expect(400);
    expect(res.body.message).toContain('has exceeded the maximum allowed length of 255 characters');
    await request(t.server).patch(path).set(env.auth).set('Idempotency-Key', 'k'.repeat(255)).send({ isOnline: true }).expect(200);
    const get = await request(t.server).get('/v1/integrations').set(env.auth).set('Idempotency-Key', 'get-key').expect(200);
    expect(get.headers['idempotency-key']).toBeUndefined();
  });

  it('checks authentication before idempotency', async () => {
    const res = await request(t.server).patch(path).set('Idempotency-Key', 'no-auth').send({ isOnline: true }).expect(401);
    expect(res.headers['idempotency-key']).toBeUndefined();
  });
});
