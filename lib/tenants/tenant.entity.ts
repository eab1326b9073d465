import { Entity, type Opt, Property, Unique } from '@mikro-orm/core';
import { EnvironmentScopedEntity } from '../common/base.entity';

/**
 * A tenant of the host's product (a customer organisation, a workspace). Triggers may name one; its
 * `name` and `data` are available to templates as `tenant.*`.
 * @publicApi
 */
@Entity({ tableName: 'ntf_tenant' })
@Unique({ name: 'ntf_tenant_environment_identifier_unique', properties: ['environmentId', 'identifier'] })
export class TenantEntity extends EnvironmentScopedEntity {
  @Property({ type: 'text' })
  identifier!: string;

  @Property({ type: 'text', nullable: true })
  name: (string & Opt) | null = null;

  @Property({ type: 'json', nullable: true })
  data: (Record<string, unknown> & Opt) | null = null;
}
