import { Entity, Index, type Opt, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { generateId } from '../common/id';

/** `in_progress` while the first request runs; `completed` once its response is stored. */
export type IdempotencyRecordStatus = 'in_progress' | 'completed';

/**
 * The stored outcome of a POST or PATCH sent with an `Idempotency-Key`, kept in PostgreSQL so that
 * every instance of the host app sees it (DESIGN §6).
 */
@Entity({ tableName: 'ntf_idempotency_record' })
@Unique({ name: 'ntf_idempotency_record_key_unique', properties: ['environmentId', 'key'] })
@Index({ name: 'ntf_idempotency_record_expires_idx', properties: ['expiresAt'] })
export class IdempotencyRecordEntity {
  @PrimaryKey({ type: 'text' })
  id: string & Opt = generateId();

  @Property({ type: 'text', fieldName: 'environment_id' })
  environmentId!: string;

  @Property({ type: 'text' })
  key!: string;

  /** sha256 of method, route and body: a reused key with another request is refused. */
  @Property({ type: 'text' })
  fingerprint!: string;

  @Property({ type: 'text' })
  status!: IdempotencyRecordStatus;

  @Property({ type: 'integer', fieldName: 'status_code', nullable: true })
  statusCode: (number & Opt) | null = null;

  @Property({ type: 'json', fieldName: 'response_body', nullable: true })
  responseBody: (unknown & Opt) | null = null;

  /** Until when an `in_progress` record blocks the key; after it, a crashed request's key is reclaimed. */
  @Property({ type: 'datetime', fieldName: 'locked_until' })
  lockedUntil!: Date;

  @Property({ type: 'datetime', fieldName: 'expires_at' })
  expiresAt!: Date;

  @Property({ type: 'datetime', fieldName: 'created_at' })
  createdAt: Date & Opt = new Date();
}
