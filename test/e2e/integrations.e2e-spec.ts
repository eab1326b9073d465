import request from 'supertest';
import { ADAPTERS, useTestApp } from '../fixtures/app';
import { createEnvironment, createIntegration, type TestEnvironment } from '../fixtures/factories';

describe.each(ADAPTERS)('GET /v1/integrations (%s)', (adapter) => {
  const t = useTestApp(adapter);
  let envA: TestEnvironment;
  let envB: TestEnvironment;

  beforeAll(async () => {
    envA = await createEnvironment(t.moduleRef, 'A');
    envB = await createEnvironment(t.moduleRef, 'B');
    await createIntegration(t.moduleRef, envA.environmentId, { name: 'first', identifier: 'first' });
    await createIntegration(t.moduleRef, envA.environmentId, { name: 'second', identifier: 'second', providerId: 'twilio', channel: 'sms', primary: true });
    await createIntegration(t.moduleRef, envB.environmentId, { name: 'other-env', identifier: 'other' });
  });

  it('lists the environment\'s integrations, oldest first, without credentials', async () => {
    const res = await request(t.server).get('/v1/integrations').set(envA.auth).expect(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body.map((i: { identifier: string }) => i.identifier)).toEqual(['first', 'second']);
    for (const integration of res.body) {
      expect(integration).not.toHaveProperty('credentials');
      expect(integration).toMatchObject({ _environmentId: envA.environmentId, _organizationId: envA.organizationId, deleted: false });
      expect(typeof integration.active).toBe('boolean');
      expect(typeof integration.primary).toBe('boolean');
    }
  });

  it('never shows another environment\'s integrations', async () => {
    const res = await request(t.server).get('/v1/integrations').set(envB.auth).expect(200);
    expect(res.body.map((i: { identifier: string }) => i.identifier)).toEqual(['other']);
  });

  it('answers 401 with the contract messages', async () => {
    const missing = await request(t.server).get('/v1/integrations').expect(401);
    expect(missing.body).toMatchObject({ statusCode: 401, message: 'Missing authorization header', path: '/v1/integrations' });
    expect(typeof missing.body.timestamp).toBe('string');
    const scheme = await request(t.server).get('/v1/integrations').set('Authorization', 'Basic abc').expect(401);
    expect(scheme.body.message).toBe('Invalid authentication scheme: "Basic"');
    const unknown = await request(t.server).get('/v1/integrations').set('Authorization', 'ApiKey nope').expect(401);
    expect(unknown.body.message).toBe('API Key not found');
  });
});
