import 'reflect-metadata';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/core';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { createNotificationsOpenApiDocument, EnvironmentsService, NotificationsExceptionFilter } from '../lib';
import { AppModule } from './app.module';
import { type DevDatabase, startEmbeddedPostgres } from './embedded-database';
import { DEMO_WORKFLOW, type SeededDemo, seedDemo } from './seed';

const logger = new Logger('SampleApp');
/** Where the embedded database and the demo key live between restarts (ignored by git). */
const DATA_DIR = join(__dirname, '..', '..', '.data');
const DEMO_FILE = join(DATA_DIR, 'demo.json');

/**
 * The sample host app: `npm start`. Uses `DATABASE_URL` when set, otherwise an embedded PostgreSQL
 * kept in `.data/`; applies the module's migrations; seeds a demo environment on first start (and
 * triggers the demo workflow, which the in-process worker then runs); serves the API on Fastify with
 * Swagger UI at /docs.
 */
async function main(): Promise<void> {
  let embedded: DevDatabase | undefined;
  let databaseUrl = process.env.DATABASE_URL;
  mkdirSync(DATA_DIR, { recursive: true, mode: 0o755 });
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres({ dataDir: join(DATA_DIR, 'postgres'), persistent: true });
    databaseUrl = embedded.url;
  }

  // A 100-event bulk trigger is far over Fastify's default 1 MB body limit.
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.register(databaseUrl),
    new FastifyAdapter({ bodyLimit: 26 * 1024 * 1024 }),
  );
  app.useGlobalFilters(new NotificationsExceptionFilter());
  app.enableShutdownHooks();
  if (embedded) app.getHttpAdapter().getInstance().addHook('onClose', async () => embedded?.stop());

  // Migrations first: initialising the module syncs code-first workflows and starts the queue and
  // the worker, which all need the tables.
  await app.get(MikroORM).getMigrator().up();
  SwaggerModule.setup('docs', app, createNotificationsOpenApiDocument(app, { title: 'nest-notifications sample app' }));
  // The seed triggers the demo workflow, which needs the queue started: initialise before seeding.
  await app.init();
  const seeded = (await readDemo(app)) ?? (await seedDemo(app));
  writeFileSync(DEMO_FILE, JSON.stringify(seeded, null, 2), { mode: 0o600 });

  const port = Number(process.env.PORT ?? 3000);
  await app.listen(port, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  const auth = `-H "Authorization: ApiKey ${seeded.apiKey}"`;
  const event = JSON.stringify({ events: [{ name: DEMO_WORKFLOW, to: 'ada', payload: { plan: 'team', update: 'first project created' } }] });
  logger.log(`Swagger UI:  ${base}/docs`);
  logger.log(`API key of the demo environment: ${seeded.apiKey}`);
  logger.log(`Try:  curl ${auth} ${base}/v1/integrations`);
  logger.log(`      curl ${auth} ${base}/v1/notifications/${seeded.notificationId}`);
  logger.log(`      curl ${auth} "${base}/v1/notifications?transactionId=${seeded.transactionId}"`);
  logger.log(`Trigger the demo workflow:  curl ${auth} -H "Content-Type: application/json" -d '${event}' ${base}/v1/events/trigger/bulk`);
  logger.log(`Read Ada's in-app feed:     curl ${auth} ${base}/v1/subscribers/ada/notifications/feed`);
}

/**
 * The demo seeded on an earlier start, if its environment is still in this database. Only the key's
 * hash is stored in the database, so the plaintext is kept in `.data/demo.json` to print it again.
 * A file written by an older sample app (without the demo trigger's transaction) is ignored: a new
 * demo environment is seeded next to the old one.
 */
async function readDemo(app: NestFastifyApplication): Promise<SeededDemo | undefined> {
  if (!existsSync(DEMO_FILE)) return undefined;
  const demo = JSON.parse(readFileSync(DEMO_FILE, 'utf8')) as Partial<SeededDemo>;
  if (!demo.environmentId || !demo.apiKey || !demo.transactionId || !demo.notificationId) return undefined;
  const environments = await app.get(EnvironmentsService).list();
  return environments.some((environment) => environment.id === demo.environmentId) ? (demo as SeededDemo) : undefined;
}

main().catch((error: unknown) => {
  logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
