import { Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { generateId } from '../common/id';

/**
 * An environment (for example "Development" or "Production") of an organisation. Every other row
 * belongs to exactly one environment, and an API key resolves to exactly one.
 * @publicApi
 */
@Entity({ tableName: 'ntf_environment' })
export class EnvironmentEntity {
  @PrimaryKey({ type: 'text' })
  id: string & Opt = generateId();

  @Property({ type: 'text', fieldName: 'organization_id', index: 'ntf_environment_organization_idx' })
  organizationId!: string;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'datetime', fieldName: 'created_at' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'datetime', fieldName: 'updated_at', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
