import { Migration } from '@mikro-orm/migrations';

/**
 * The trigger pipeline: jobs carry the value of their digest or throttle key (`group_key`), so that
 * "the delayed digest of this subscriber, workflow and key" and "throttle runs in this window" are
 * index lookups. The indexes are partial: only digest and throttle jobs have a key, only merged runs a digest.
 */
export class Migration20261121120000Pipeline extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "ntf_job" add column "group_key" text null`);
    this.addSql(
      `create index "ntf_job_group_idx" on "ntf_job" ("environment_id", "workflow_id", "subscriber_id", "type", "group_key", "created_at") where "group_key" is not null`,
    );
    // A digest collects the runs merged into it when its window closes.
    this.addSql(`create index "ntf_job_merged_digest_idx" on "ntf_job" ("merged_digest_id") where "merged_digest_id" is not null`);
    // Listing filters: GET /v1/messages?channel=..., GET /v1/notifications?emails=...
    this.addSql(`create index "ntf_message_channel_idx" on "ntf_message" ("environment_id", "channel", "created_at", "id")`);
    this.addSql(`create index "ntf_subscriber_email_idx" on "ntf_subscriber" ("environment_id", "email")`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "ntf_subscriber_email_idx"`);
    this.addSql(`drop index if exists "ntf_message_channel_idx"`);
    this.addSql(`drop index if exists "ntf_job_merged_digest_idx"`);
    this.addSql(`drop index if exists "ntf_job_group_idx"`);
    this.addSql(`alter table "ntf_job" drop column if exists "group_key"`);
  }
}
