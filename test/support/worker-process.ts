import { MikroOrmModule } from '@mikro-orm/nestjs';
import { Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NotificationsModule } from '../../lib';
import { createOrmConfig } from '../../sample-app/mikro-orm.config';
import { TEST_ENCRYPTION_KEY } from '../fixtures/app';

/**
 * A worker-only instance of a host app, run as a separate OS process by the crash and multi-process
 * specs (`node -r test/support/register-ts.js test/support/worker-process.ts`): the module without
 * controllers, the worker on, no HTTP server. Settings come from the environment:
 * `NTF_WORKER_DATABASE_URL`, and `NTF_WORKER_OPTIONS` (JSON merged into the module options).
 * It prints `ready` once the worker polls, and a `ran <n>` line per batch (the StepRunner's debug log).
 * SIGTERM stops it cleanly (exit code 0); see test/e2e/worker-processes.e2e-spec.ts.
 */
async function main(): Promise<void> {
  const url = process.env.NTF_WORKER_DATABASE_URL;
  if (!url) throw new Error('NTF_WORKER_DATABASE_URL is not set');
  const extra = JSON.parse(process.env.NTF_WORKER_OPTIONS ?? '{}') as Record<string, unknown>;

  @Module({
    imports: [
      MikroOrmModule.forRoot(createOrmConfig(url)),
      NotificationsModule.forRoot({ encryptionKey: TEST_ENCRYPTION_KEY, registerControllers: false, ...extra }),
    ],
  })
  class WorkerAppModule {}

  const app = await NestFactory.createApplicationContext(WorkerAppModule, { logger: ['error', 'warn', 'log', 'debug'] });
  // SIGTERM/SIGINT close the app (pg-boss stops gracefully: running batches finish and are completed),
  // then exit with code 0. Nest's default re-raises the signal instead, which a supervisor (and the
  // spec) cannot tell apart from being killed.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  new Logger('WorkerProcess').log(`ready pid=${process.pid}`);
}

main().catch((error: unknown) => {
  new Logger('WorkerProcess').error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
