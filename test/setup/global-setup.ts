import { MetadataStorage, MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import PgBoss from 'pg-boss';
import { NOTIFICATIONS_MIGRATIONS } from '../../lib';
import { startEmbeddedPostgres } from '../../sample-app/embedded-database';
import { createOrmConfig } from '../../sample-app/mikro-orm.config';
import { TEMPLATE_DATABASE } from './test-env';

/**
 * Starts one real PostgreSQL for the whole run (embedded, or the server of `DATABASE_URL`), and
 * prepares a template database with every migration applied. Each spec file then clones the
 * template into a database of its own (`CREATE DATABASE … TEMPLATE`, a file copy) — isolation
 * without paying for migrations per file.
 */
export default async function globalSetup(): Promise<void> {
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const db = await startEmbeddedPostgres({ persistent: false, fsyncOff: true });
    (globalThis as Record<string, unknown>).__NTF_DB__ = db;
    adminUrl = db.url;
  }
  process.env.NTF_TEST_ADMIN_URL = adminUrl;

  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  await admin.end();

  const orm = await MikroORM.init(
    createOrmConfig(withDatabase(adminUrl, TEMPLATE_DATABASE), { migrations: { migrationsList: NOTIFICATIONS_MIGRATIONS, snapshot: false, silent: true } }),
  );
  await orm.getMigrator().up();
  await orm.close(true);
  // pg-boss's own schema too, so that each spec's clone starts with it instead of migrating it again.
  const boss = new PgBoss({ connectionString: withDatabase(adminUrl, TEMPLATE_DATABASE), schema: 'pgboss', supervise: false, schedule: false });
  await boss.start();
  await boss.stop({ graceful: false, wait: true, close: true });
  // With a single spec, jest runs it in this very process: entity metadata discovered here (in the
  // setup's realm) must not leak into the spec's realm, where its Maps would be foreign objects.
  MetadataStorage.clear();
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
