import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { NOTIFICATIONS_ENTITIES, NOTIFICATIONS_MIGRATIONS } from '../lib';

/**
 * MikroORM configuration of a host app that mounts the module: the module's entities and migrations
 * registered by list, nothing loaded from disk. The tests and benchmarks use it too.
 */
export function createOrmConfig(clientUrl: string, overrides: Partial<Options> = {}): Options {
  return defineConfig({
    clientUrl,
    entities: [...NOTIFICATIONS_ENTITIES],
    discovery: { requireEntitiesArray: true },
    migrations: { migrationsList: NOTIFICATIONS_MIGRATIONS, snapshot: false, transactional: true },
    allowGlobalContext: false,
    pool: { min: 0, max: 20 },
    ...overrides,
  });
}
