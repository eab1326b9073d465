import 'reflect-metadata';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NotificationsModule } from '../lib';
import { createOrmConfig } from '../sample-app/mikro-orm.config';
import { BENCH_ENCRYPTION_KEY } from './pipeline-support';

/**
 * A worker-only instance of a host app for the end-to-end benchmark, run from the compiled output as
 * a separate OS process (`node dist/bench/worker-process.js`): the module without controllers, the
 * worker on, no HTTP server — as test/support/worker-process.ts, but without loading TypeScript at run
 * time, whose compilation would be measured with the worker.
 *
 * Settings come from the environment: `NTF_WORKER_DATABASE_URL`, and `NTF_WORKER_OPTIONS` (JSON merged
 * into the module options, e.g. `{"worker":{"batchSize":100}}`). It prints `ready` once the worker polls,
 * and a `ran <n> job(s) of <m> queue entries in <x> ms` line per batch (the StepRunner's debug log).
 * SIGTERM stops it gracefully (running batches finish).
 */
async function main(): Promise<void> {
  const url = process.env.NTF_WORKER_DATABASE_URL;
  if (!url) throw new Error('NTF_WORKER_DATABASE_URL is not set');
  const extra = JSON.parse(process.env.NTF_WORKER_OPTIONS ?? '{}') as Record<string, unknown>;

  @Module({
    imports: [
      MikroOrmModule.forRoot(createOrmConfig(url)),
      NotificationsModule.forRoot({ encryptionKey: BENCH_ENCRYPTION_KEY, registerControllers: false, ...extra }),
    ],
  })
  class BenchWorkerModule {}

  const app = await NestFactory.createApplicationContext(BenchWorkerModule, { logger: ['error', 'warn', 'log', 'debug'] });
  app.enableShutdownHooks();
  new Logger('WorkerProcess').log(`ready pid=${process.pid}`);
}

main().catch((error: unknown) => {
  new Logger('WorkerProcess').error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
