import { MikroORM } from '@mikro-orm/postgresql';
import { NOTIFICATIONS_MIGRATIONS } from '../../lib';
import { createOrmConfig } from '../../sample-app/mikro-orm.config';
import { createTestDatabase } from '../fixtures/database';

describe('migrations', () => {
  it('build exactly the schema the entities describe', async () => {
    const db = await createTestDatabase();
    const orm = await MikroORM.init(createOrmConfig(db.url));
    try {
      // The spec's database was cloned from the migrated template: nothing may be left to change.
      const diff = await orm.schema.getUpdateSchemaSQL({ wrap: false });
      expect(diff.trim()).toBe('');
    } finally {
      await orm.close(true);
      await db.drop();
    }
  });

  it('can be rolled back and applied again', async () => {
    const db = await createTestDatabase();
    const orm = await MikroORM.init(createOrmConfig(db.url, { migrations: { migrationsList: NOTIFICATIONS_MIGRATIONS, snapshot: false, silent: true } }));
    try {
      const migrator = orm.getMigrator();
      await migrator.down({ to: 0 });
      const rows = await orm.em
        .getConnection()
        .execute<{ count: string }[]>(`SELECT count(*)::text AS count FROM information_schema.tables WHERE table_schema = 'public' AND table_name LIKE 'ntf_%'`);
      expect(rows[0].count).toBe('0');
      await migrator.up();
      expect((await orm.schema.getUpdateSchemaSQL({ wrap: false })).trim()).toBe('');
    } finally {
      await orm.close(true);
      await db.drop();
    }
  });
});
