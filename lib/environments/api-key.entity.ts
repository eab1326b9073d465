import { Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { generateId } from '../common/id';

/**
 * An API key of an environment. Only the sha256 hash of the secret is stored; the plaintext is
 * shown once, when the key is created.
 * @publicApi
 */
@Entity({ tableName: 'ntf_api_key' })
export class ApiKeyEntity {
  @PrimaryKey({ type: 'text' })
  id: string & Opt = generateId();

  @Property({ type: 'text', fieldName: 'environment_id', index: 'ntf_api_key_environment_idx' })
  environmentId!: string;

  @Property({ type: 'text', fieldName: 'organization_id' })
  organizationId!: string;

  /** sha256 of the secret, hex. */
  @Property({ type: 'text', unique: 'ntf_api_key_hash_unique' })
  hash!: string;

  @Property({ type: 'datetime', fieldName: 'created_at' })
  createdAt: Date & Opt = new Date();

  /** Set when the key is revoked; a revoked key no longer authenticates. */
  @Property({ type: 'datetime', fieldName: 'revoked_at', nullable: true })
  revokedAt: (Date & Opt) | null = null;
}
