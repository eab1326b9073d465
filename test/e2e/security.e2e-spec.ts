import request from 'supertest';
import { EnvironmentsService, NotificationsDatabase, type SessionPrincipal } from '../../lib';
import { ADAPTERS, createTestApp, useTestApp } from '../fixtures/app';
import { createTestDatabase } from '../fixtures/database';
import { createEnvironment, createIntegration, type TestEnvironment } from '../fixtures/factories';

const SECRETS = ['SG.super-secret-sendgrid-key', 'twilio-auth-token-very-secret'];

describe.each(ADAPTERS)('secrets and sessions (%s)', (adapter) => {
  let prod: TestEnvironment;
  let dev: TestEnvironment;
  const sessions = new Map<string, SessionPrincipal>();
  const t = useTestApp(adapter, { options: { sessionAuth: async (token) => sessions.get(token) ?? null } });

  beforeAll(async () => {
    prod = await createEnvironment(t.moduleRef, 'Production');
    const created = await t.moduleRef.get(EnvironmentsService).create({ name: 'Development', organizationId: prod.organizationId });
    dev = {
      environmentId: created.environment.id,
      organizationId: created.environment.organizationId,
      apiKey: created.apiKey,
      auth: { Authorization: `ApiKey ${created.apiKey}` },
    };
    await createIntegration(t.moduleRef, prod.environmentId, { identifier: 'sendgrid', credentials: { apiKey: SECRETS[0], from: 'a@example.com' } });
    await createIntegration(t.moduleRef, dev.environmentId, {
      identifier: 'twilio',
      providerId: 'twilio',
      channel: 'sms',
      credentials: { accountSid: 'AC123', token: SECRETS[1], from: '+15550000000' },
    });
    sessions.set('session-token', { organizationId: prod.organizationId, environmentId: prod.environmentId, userId: 'user-1' });
  });

  it('stores no plaintext secret and no plaintext API key anywhere in the database', async () => {
    const sql = t.moduleRef.get(NotificationsDatabase);
    const { rows: tables } = await sql.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name LIKE 'ntf_%'`,
    );
    let dump = '';
    for (const { table_name } of tables) {
      const { rows } = await sql.query(`SELECT t::text AS row FROM "${table_name}" t`);
      dump += rows.map((r) => r.row).join('\n');
    }
    expect(dump.length).toBeGreaterThan(0);
    for (const secret of [...SECRETS, prod.apiKey, dev.apiKey]) expect(dump).not.toContain(secret);
  });

  it('gives API-key callers no credentials', async () => {
    const res = await request(t.server).get('/v1/integrations').set(prod.auth).expect(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).not.toHaveProperty('credentials');
    expect(JSON.stringify(res.body)).not.toContain(SECRETS[0]);
  });

  it('gives session callers their organisation\'s integrations with decrypted credentials', async () => {
    const res = await request(t.server).get('/v1/integrations').set('Authorization', 'Bearer session-token').expect(200);
    expect(res.body.map((i: { identifier: string }) => i.identifier).sort()).toEqual(['sendgrid', 'twilio']);
    const sendgrid = res.body.find((i: { identifier: string }) => i.identifier === 'sendgrid');
    expect(sendgrid.credentials).toEqual({ apiKey: SECRETS[0], from: 'a@example.com' });
  });

  it('refuses unknown session tokens', async () => {
    await request(t.server).get('/v1/integrations').set('Authorization', 'Bearer nope').expect(401);
    await request(t.server).get('/v1/integrations').set('Authorization', 'Bearer').expect(401);
  });
});

describe('Bearer tokens without sessionAuth', () => {
  it('are refused with 401', async () => {
    const db = await createTestDatabase();
    const t = await createTestApp({ adapter: 'fastify', databaseUrl: db.url });
    try {
      const res = await request(t.server).get('/v1/integrations').set('Authorization', 'Bearer anything').expect(401);
      expect(res.body).toMatchObject({ statusCode: 401, path: '/v1/integrations' });
    } finally {
      await t.close();
      await db.drop();
    }
  });
});
