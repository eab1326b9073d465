import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121000000Initial } from './Migration20261121000000Initial';
import { Migration20261121120000Pipeline } from './Migration20261121120000Pipeline';
import { Migration20261122000000Providers } from './Migration20261122000000Providers';

/**
 * The module's migrations, in order, for MikroORM's `migrations.migrationsList`. Apply them with the
 * Migrator (`orm.getMigrator().up()`); never `schema:update` in production.
 * @publicApi
 */
export const NOTIFICATIONS_MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261121000000Initial', class: Migration20261121000000Initial },
  { name: 'Migration20261121120000Pipeline', class: Migration20261121120000Pipeline },
  { name: 'Migration20261122000000Providers', class: Migration20261122000000Providers },
];
