import { type EntityMetadata, type EntityProperty, MikroORM, type Platform, type Type } from '@mikro-orm/core';
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
  /** {@link read}'s row → entity functions, one per entity class. */
  private readonly readers = new Map<object, (row: Record<string, unknown>) => object>();

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

  /**
   * Turns raw rows (column names as keys) into **detached, read-only** entities of `entity`: values are
   * converted as `em.map` converts them (timestamps to Dates, custom types, booleans), but nothing is
   * registered in an identity map or snapshotted for change tracking. For read paths that only turn
   * rows into responses: there, `em.map`'s bookkeeping costs more than the query itself (about 40 µs per
   * entity measured, bench/http-throughput.bench.ts). To change an entity, load it into an
   * EntityManager instead.
   */
  read<T extends object>(entity: new (...args: never[]) => T, rows: readonly object[]): T[] {
    let hydrate = this.readers.get(entity) as ((row: Record<string, unknown>) => T) | undefined;
    if (!hydrate) {
      hydrate = this.compileReader<T>(this.orm.getMetadata().get<T>(entity.name));
      this.readers.set(entity, hydrate);
    }
    return rows.map(hydrate as (row: object) => T);
  }

  /**
   * The per-entity row → entity function of {@link read}, generated once from the ORM's metadata (as
   * MikroORM generates its own hydrators): one object literal of a fixed shape per row, then the
   * entity's prototype. Assigning onto an object that already has the prototype would run the ORM's
   * change-tracking setters (a WrappedEntity and an accessor per property), which is what made
   * `em.map` slow. Conversions are those of MikroORM's ObjectHydrator for scalar properties.
   */
  private compileReader<T extends object>(meta: EntityMetadata<T>): (row: Record<string, unknown>) => T {
    const customTypes: Record<string, Type<unknown>> = {};
    const fields = meta.props
      .filter((prop: EntityProperty<T>) => prop.persist !== false && prop.fieldNames?.length === 1)
      .map((prop: EntityProperty<T>) => {
        const name = JSON.stringify(prop.name);
        const value = `row[${JSON.stringify(prop.fieldNames[0])}]`;
        let converted = value;
        if (prop.customType) {
          customTypes[prop.name as string] = prop.customType as Type<unknown>;
          converted = `customTypes[${name}].convertToJSValue(${value}, platform)`;
        } else if (prop.runtimeType === 'Date') {
          // The ORM's connections return timestamps as text (PostgreSqlConnection's type overrides).
          converted = `(${value} instanceof Date ? ${value} : new Date(${value}))`;
        } else if (prop.runtimeType === 'boolean') {
          converted = `!!${value}`;
        }
        return `${name}: ${value} == null ? ${value} : ${converted}`;
      });
    const factory = new Function('customTypes', 'platform', 'prototype', `return (row) => Object.setPrototypeOf({ ${fields.join(', ')} }, prototype);`);
    return factory(customTypes, this.orm.em.getPlatform() as Platform, meta.class.prototype) as (row: Record<string, unknown>) => T;
  }

  private knex(): Knex {
    return (this.orm.em as EntityManager).getKnex();
  }
}
