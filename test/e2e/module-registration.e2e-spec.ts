import { MikroOrmModule } from '@mikro-orm/nestjs';
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import {
  type ApiKeyPrincipal,
  ApiKeyValidator,
  EnvironmentsService,
  InvalidNotificationsOptionsError,
  NotificationsModule,
  type NotificationsModuleOptions,
} from '../../lib';
import { createOrmConfig } from '../../sample-app/mikro-orm.config';
import { createApplication, TEST_ENCRYPTION_KEY } from '../fixtures/app';
import { createTestDatabase } from '../fixtures/database';

/** A host's own key store: accepts one fixed key for a fixed environment. */
@Injectable()
class StaticApiKeyValidator extends ApiKeyValidator {
  static environmentId = '';
  static organizationId = '';
  async validate(apiKey: string): Promise<ApiKeyPrincipal | null> {
    return apiKey === 'host-issued-key'
      ? { environmentId: StaticApiKeyValidator.environmentId, organizationId: StaticApiKeyValidator.organizationId }
      : null;
  }
}

@Injectable()
class NotificationsConfig {
  createNotificationsOptions(): NotificationsModuleOptions {
    return { encryptionKey: TEST_ENCRYPTION_KEY };
  }
}

@Module({ providers: [NotificationsConfig], exports: [NotificationsConfig] })
class ConfigModule {}

describe('NotificationsModule registration', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db?.drop());

  const registrations: Array<[string, () => ReturnType<typeof NotificationsModule.forRoot>]> = [
    ['forRoot', () => NotificationsModule.forRoot({ encryptionKey: TEST_ENCRYPTION_KEY })],
    ['forRootAsync with useFactory', () => NotificationsModule.forRootAsync({ useFactory: async () => ({ encryptionKey: TEST_ENCRYPTION_KEY }) })],
    ['forRootAsync with useClass', () => NotificationsModule.forRootAsync({ useClass: NotificationsConfig })],
    [
      'forRootAsync with useExisting',
      () => NotificationsModule.forRootAsync({ imports: [ConfigModule], useExisting: NotificationsConfig }),
    ],
  ];

  it.each(registrations)('%s serves the API with its services', async (_name, register) => {
    const moduleRef = await Test.createTestingModule({
      imports: [MikroOrmModule.forRoot(createOrmConfig(db.url)), register()],
    }).compile();
    const app = await createApplication(moduleRef, 'fastify');
    try {
      const { apiKey } = await moduleRef.get(EnvironmentsService).create({ name: 'registration' });
      await request(app.getHttpServer()).get('/v1/integrations').set('Authorization', `ApiKey ${apiKey}`).expect(200, []);
    } finally {
      await app.close();
    }
  });

  it('lets a host replace the ApiKeyValidator', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        MikroOrmModule.forRoot(createOrmConfig(db.url)),
        NotificationsModule.forRootAsync({
          useFactory: () => ({ encryptionKey: TEST_ENCRYPTION_KEY }),
          extraProviders: [{ provide: ApiKeyValidator, useClass: StaticApiKeyValidator }],
        }),
      ],
    }).compile();
    const app = await createApplication(moduleRef, 'express');
    try {
      const { environment, apiKey } = await moduleRef.get(EnvironmentsService).create({ name: 'custom validator' });
      StaticApiKeyValidator.environmentId = environment.id;
      StaticApiKeyValidator.organizationId = environment.organizationId;
      expect(moduleRef.get(ApiKeyValidator)).toBeInstanceOf(StaticApiKeyValidator);
      await request(app.getHttpServer()).get('/v1/integrations').set('Authorization', 'ApiKey host-issued-key').expect(200);
      // The default validator is gone: keys from the database no longer authenticate.
      await request(app.getHttpServer()).get('/v1/integrations').set('Authorization', `ApiKey ${apiKey}`).expect(401);
    } finally {
      await app.close();
    }
  });

  it('with registerControllers: false serves no routes but keeps the services', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        MikroOrmModule.forRoot(createOrmConfig(db.url)),
        NotificationsModule.forRoot({ encryptionKey: TEST_ENCRYPTION_KEY, registerControllers: false }),
      ],
    }).compile();
    const app = await createApplication(moduleRef, 'fastify');
    try {
      const { apiKey } = await moduleRef.get(EnvironmentsService).create({ name: 'worker only' });
      await request(app.getHttpServer()).get('/v1/integrations').set('Authorization', `ApiKey ${apiKey}`).expect(404);
    } finally {
      await app.close();
    }
  });

  it('refuses to boot without a usable encryption key', async () => {
    const compile = Test.createTestingModule({
      // No connection: the ORM would still be connecting in the background when compile() rejects.
      imports: [MikroOrmModule.forRoot(createOrmConfig(db.url, { connect: false })), NotificationsModule.forRoot({ encryptionKey: 'short' })],
    }).compile();
    await expect(compile).rejects.toBeInstanceOf(InvalidNotificationsOptionsError);
  });
});
