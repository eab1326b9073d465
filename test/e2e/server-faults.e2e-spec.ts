import { Logger } from '@nestjs/common';
import request from 'supertest';
import { NotificationsDatabase } from '../../lib';
import { ADAPTERS, useTestApp } from '../fixtures/app';
import { createEnvironment, type TestEnvironment } from '../fixtures/factories';

describe.each(ADAPTERS)('a real server fault (%s)', (adapter) => {
  const t = useTestApp(adapter);
  let env: TestEnvironment;

  beforeAll(async () => {
    env = await createEnvironment(t.moduleRef);
    // Break the database under the running app: the next read of integrations fails inside PostgreSQL.
    await t.moduleRef.get(NotificationsDatabase).query('ALTER TABLE ntf_integration RENAME TO ntf_integration_gone');
  });

  it('is a 500 with an errorId that is in the log, and leaks nothing', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const res = await request(t.server).get('/v1/integrations').set(env.auth).expect(500);
      expect(res.body).toMatchObject({
        statusCode: 500,
        path: '/v1/integrations',
        message: 'Internal server error, contact support and provide them with the errorId',
      });
      expect(res.body.errorId).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.stringify(res.body)).not.toMatch(/ntf_integration|relation|SELECT/i);
      const lines = logged.mock.calls.map((call) => String(call[0]));
      expect(lines.some((line) => line.includes(res.body.errorId) && line.includes('ntf_integration'))).toBe(true);
    } finally {
      logged.mockRestore();
    }
  });
});
