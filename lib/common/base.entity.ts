import { type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { generateId } from './id';

/**
 * Columns every tenant-owned row carries: a 24-hex id, the owning environment and organisation, and
 * timestamps. Every query filters by `environment_id`; no exceptions (DESIGN §5).
 *
 * Column names are given explicitly so that a host's naming strategy never changes our schema.
 */
export abstract class EnvironmentScopedEntity {
  @PrimaryKey({ type: 'text' })
  id: string & Opt = generateId();

  @Property({ type: 'text', fieldName: 'environment_id' })
  environmentId!: string;

  @Property({ type: 'text', fieldName: 'organization_id' })
  organizationId!: string;

  @Property({ type: 'datetime', fieldName: 'created_at' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'datetime', fieldName: 'updated_at', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
