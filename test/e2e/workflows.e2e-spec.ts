import { MikroOrmModule } from '@mikro-orm/nestjs';
import { Test } from '@nestjs/testing';
import {
  EnvironmentsService,
  NotificationsDatabase,
  NotificationsModule,
  RequestValidationException,
  TenantsService,
  type WorkflowDefinition,
  WorkflowsService,
} from '../../lib';
import { createOrmConfig } from '../../sample-app/mikro-orm.config';
import { createApplication, TEST_ENCRYPTION_KEY } from '../fixtures/app';
import { createTestDatabase } from '../fixtures/database';

const CODE_FIRST: WorkflowDefinition = {
  identifier: 'welcome',
  name: 'Welcome',
  tags: ['onboarding'],
  steps: [
    { type: 'in_app', template: { content: 'Hi {{ subscriber.firstName }}' } },
    { type: 'delay', metadata: { type: 'regular', amount: 1, unit: 'hours' } },
    { type: 'email', template: { subject: 'Welcome', content: '<p>Hello</p>' } },
  ],
};

describe('workflows and tenants (services)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db?.drop());

  async function boot() {
    const moduleRef = await Test.createTestingModule({
      imports: [
        MikroOrmModule.forRoot(createOrmConfig(db.url)),
        NotificationsModule.forRoot({ encryptionKey: TEST_ENCRYPTION_KEY, workflows: [CODE_FIRST] }),
      ],
    }).compile();
    const app = await createApplication(moduleRef, 'fastify');
    return { app, moduleRef };
  }

  it('stores code-first workflows in new environments and, at boot, in existing ones', async () => {
    const first = await boot();
    const { environment } = await first.moduleRef.get(EnvironmentsService).create({ name: 'created after boot' });
    const stored = await first.moduleRef.get(WorkflowsService).findByIdentifier(environment.id, 'welcome');
    expect(stored).toMatchObject({ name: 'Welcome', origin: 'code', active: true, tags: ['onboarding'] });
    expect(stored?.steps.map((step) => step.type)).toEqual(['in_app', 'delay', 'email']);
    for (const step of stored?.steps ?? []) {
      expect(step._id).toMatch(/^[0-9a-f]{24}$/);
      expect(step._templateId).toMatch(/^[0-9a-f]{24}$/);
      expect(step).toMatchObject({ active: true, shouldStopOnFail: false, filters: [] });
    }
    const gone = await first.moduleRef.get(EnvironmentsService).create({ name: 'lost its workflow' });
    await first.moduleRef.get(NotificationsDatabase).query('DELETE FROM ntf_workflow WHERE environment_id = $1', [gone.environment.id]);
    await first.app.close();
    const second = await boot();
    try {
      const again = await second.moduleRef.get(WorkflowsService).findByIdentifier(environment.id, 'welcome');
      // Re-synced with the same step ids: jobs of earlier runs still point at them.
      expect(again?.steps.map((step) => step._id)).toEqual(stored?.steps.map((step) => step._id));
      // An environment that lost it gets it back at boot.
      expect(await second.moduleRef.get(WorkflowsService).findByIdentifier(gone.environment.id, 'welcome')).not.toBeNull();
    } finally {
      await second.app.close();
    }
  });

  it('upserts run-time workflows, keeping step ids where the step stays, and refuses malformed ones', async () => {
    const { app, moduleRef } = await boot();
    try {
      const { environment } = await moduleRef.get(EnvironmentsService).create({ name: 'runtime' });
      const workflows = moduleRef.get(WorkflowsService);
      const v1 = await workflows.upsert(environment.id, { identifier: 'digest', name: 'Digest', steps: [{ type: 'digest' }, { type: 'in_app' }] });
      expect(v1.origin).toBe('api');
      const v2 = await workflows.upsert(environment.id, { identifier: 'digest', name: 'Digest v2', steps: [{ type: 'digest' }, { type: 'email' }] });
      expect(v2.id).toBe(v1.id);
      expect(v2.name).toBe('Digest v2');
      expect(v2.steps[0]._id).toBe(v1.steps[0]._id);
      expect(v2.steps[1]._id).not.toBe(v1.steps[1]._id);
      await expect(workflows.upsert(environment.id, { identifier: '', name: 'x', steps: [] })).rejects.toBeInstanceOf(RequestValidationException);
      await expect(
        workflows.upsert(environment.id, { identifier: 'bad', name: 'Bad', steps: [{ type: 'fax' as never }] }),
      ).rejects.toMatchObject({ errors: { 'steps[0].type': expect.anything() } });
      // Environments never see each other's workflows.
      const other = await moduleRef.get(EnvironmentsService).create({ name: 'other' });
      expect(await workflows.findByIdentifier(other.environment.id, 'digest')).toBeNull();
    } finally {
      await app.close();
    }
  });

  it('creates tenants, unique per environment', async () => {
    const { app, moduleRef } = await boot();
    try {
      const { environment } = await moduleRef.get(EnvironmentsService).create({ name: 'tenants' });
      const tenants = moduleRef.get(TenantsService);
      const acme = await tenants.create(environment.id, { identifier: 'acme', name: 'Acme', data: { plan: 'pro' } });
      expect(await tenants.findByIdentifier(environment.id, 'acme')).toMatchObject({ id: acme.id, name: 'Acme', data: { plan: 'pro' } });
      await expect(tenants.create(environment.id, { identifier: 'acme' })).rejects.toMatchObject({ errors: { identifier: expect.anything() } });
      const other = await moduleRef.get(EnvironmentsService).create({ name: 'other tenants' });
      expect(await tenants.findByIdentifier(other.environment.id, 'acme')).toBeNull();
    } finally {
      await app.close();
    }
  });
});
