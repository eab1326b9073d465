import { MikroOrmModule } from '@mikro-orm/nestjs';
import { Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NotificationsModule } from '../lib';
import { createOrmConfig } from './mikro-orm.config';

/**
 * Runs a worker-only instance of a host app in this process: the module without controllers, the
 * worker on, no HTTP server (README, "The worker"). The crash and multi-process specs and the
 * end-to-end benchmark start it as separate OS processes.
 *
 * Settings come from the environment: `NTF_WORKER_DATABASE_URL`, and `NTF_WORKER_OPTIONS` (JSON merged
 * into the module options, e.g. `{"worker":{"batchSize":100}}`). It logs `ready` once the worker polls,
 * and a `ran <n> job(s) of <m> queue entries in <x> ms` line per batch (the StepRunner's debug log).
 * SIGTERM/SIGINT stop it cleanly: running batches finish, then the process exits with code 0.
 * With `NTF_WORKER_MEMORY_LOG_MS` set it also logs `memory heapUsedMb=<n> rssMb=<n>` that often (after a
 * full collection when node runs with `--expose-gc`), for the benchmarks' memory figures.
 */
export function runWorkerProcess(encryptionKey: string): void {
  const logger = new Logger('WorkerProcess');
  start(encryptionKey)
    .then(() => {
      logger.log(`ready pid=${process.pid}`);
      logMemory(logger, Number(process.env.NTF_WORKER_MEMORY_LOG_MS ?? 0));
    })
    .catch((error: unknown) => {
      logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
      process.exit(1);
    });
}

async function start(encryptionKey: string): Promise<void> {
  const url = process.env.NTF_WORKER_DATABASE_URL;
  if (!url) throw new Error('NTF_WORKER_DATABASE_URL is not set');
  const extra = JSON.parse(process.env.NTF_WORKER_OPTIONS ?? '{}') as Record<string, unknown>;

  @Module({
    imports: [
      MikroOrmModule.forRoot(createOrmConfig(url)),
      NotificationsModule.forRoot({ encryptionKey, registerControllers: false, ...extra }),
    ],
  })
  class WorkerAppModule {}

  const app = await NestFactory.createApplicationContext(WorkerAppModule, { logger: ['error', 'warn', 'log', 'debug'] });
  // Exit with code 0 after closing: Nest's default re-raises the signal, which a supervisor (and the
  // specs) cannot tell apart from being killed.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
}

/** Every `everyMs` (0: never), the heap in use (after a full collection when `gc` is exposed) and the RSS. */
function logMemory(logger: Logger, everyMs: number): void {
  if (!(everyMs > 0)) return;
  const gc = (globalThis as { gc?: () => void }).gc;
  setInterval(() => {
    gc?.();
    const { heapUsed, rss } = process.memoryUsage();
    logger.log(`memory heapUsedMb=${(heapUsed / 2 ** 20).toFixed(1)} rssMb=${(rss / 2 ** 20).toFixed(1)}`);
  }, everyMs).unref();
}
