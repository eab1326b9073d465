import { MikroORM } from '@mikro-orm/core';
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import type { PoolClient, QueryResult, QueryResultRow } from 'pg';

/**
 * The module's handle on the host's MikroORM instance (the one of `contextName`).
 *
 * Services never rely on a request context: every public method works on its own fork, so they can be
 * called from controllers, queue workers, scripts and tests alike. Hot paths that must be set-based
 * (one statement per table per request) use {@link query}, which speaks `pg` directly with `$n`
 * placeholders and array parameters, inside the caller's transaction when one is given.
 */
export class NotificationsDatabase {
  constructor(readonly orm: MikroORM) {}

  /** A fresh EntityManager with an empty identity map. */
  fork(): EntityManager {
    return this.orm.em.fork() as EntityManager;
  }

  /**
   * Runs one SQL statement with `pg` placeholders (`$1`, `$2`, ...). With `em` inside
   * `em.transactional(...)`, the statement joins that transaction; otherwise it takes a pooled connection.
   */
  async query<T extends QueryResultRow = QueryResultRow>(
    text: string,
    values: readonly unknown[] = [],
    em?: EntityManager,
  ): Promise<QueryResult<T>> {
    const trx = em?.getTransactionContext<Knex.Transaction>();
    if (trx) {
      const conn = (await trx.client.acquireConnection()) as PoolClient;
      return conn.query<T>(text, values as unknown[]);
    }
    const client = this.knex().client;
    const conn = (await client.acquireConnection()) as PoolClient;
    try {
      return await conn.query<T>(text, values as unknown[]);
    } finally {
      await client.releaseConnection(conn);
    }
  }

  /** Turns raw rows (column names as keys) into entities of `entity`, merged into `em`. */
  map<T extends object>(em: EntityManager, entity: new (...args: never[]) => T, rows: readonly object[]): T[] {
    return rows.map((row) => em.map(entity, row as never) as T);
  }

  private knex(): Knex {
    return (this.orm.em as EntityManager).getKnex();
  }
}
