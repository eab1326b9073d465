import { Migration } from '@mikro-orm/migrations';

/**
 * Delivery through vendors: a job counts the retries of its transient send failures (`attempts`), so
 * the worker knows when to stop retrying and marks the later tries' log lines `isRetry`.
 */
export class Migration20261122000000Providers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "ntf_job" add column "attempts" integer not null default 0`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "ntf_job" drop column if exists "attempts"`);
  }
}
