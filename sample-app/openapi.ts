import 'reflect-metadata';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { createNotificationsOpenApiDocument, NotificationsModule } from '../lib';
import { createOrmConfig } from './mikro-orm.config';

/**
 * Prints the module's OpenAPI document as JSON on stdout (`npm run --silent openapi`), without
 * opening a port or touching a database: the ORM is configured with `connect: false` and the app is
 * never initialised, so no lifecycle hook runs.
 */
@Module({
  imports: [
    MikroOrmModule.forRoot(createOrmConfig('postgres://openapi@127.0.0.1:1/openapi', { connect: false })),
    NotificationsModule.forRoot({ encryptionKey: 'openapi-document-only-key' }),
  ],
})
class OpenApiModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(OpenApiModule, new FastifyAdapter(), { logger: false, abortOnError: false });
  const document = createNotificationsOpenApiDocument(app, { title: 'nest-notifications' });
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
  await app.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
