import { Migration } from '@mikro-orm/migrations';

/**
 * The initial schema: every table of DESIGN §5 with the indexes its queries need.
 * Generated from the entities against a throwaway database, then reviewed; a spec checks that the
 * entities and the migrated schema never drift apart.
 */
export class Migration20261121000000Initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "ntf_api_key" ("id" text not null, "environment_id" text not null, "organization_id" text not null, "hash" text not null, "created_at" timestamptz not null, "revoked_at" timestamptz null, constraint "ntf_api_key_pkey" primary key ("id"))`);
    this.addSql(`create index "ntf_api_key_environment_idx" on "ntf_api_key" ("environment_id")`);
    this.addSql(`alter table "ntf_api_key" add constraint "ntf_api_key_hash_unique" unique ("hash")`);
    this.addSql(`create table "ntf_channel_connection" ("id" text not null, "environment_id" text not null, "organization_id" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "identifier" text not null, "channel" text null, "provider_id" text null, "integration_identifier" text null, "subscriber_id" text null, "context_keys" text[] not null, "workspace" jsonb not null, "auth_encrypted" text not null, constraint "ntf_channel_connection_pkey" primary key ("id"))`);
    this.addSql(`create index "ntf_channel_connection_context_idx" on "ntf_channel_connection" ("environment_id", "context_keys", "created_at", "id")`);
    this.addSql(`create index "ntf_channel_connection_integration_idx" on "ntf_channel_connection" ("environment_id", "integration_identifier", "created_at", "id")`);
    this.addSql(`create index "ntf_channel_connection_subscriber_idx" on "ntf_channel_connection" ("environment_id", "subscriber_id", "created_at", "id")`);
    this.addSql(`create index "ntf_channel_connection_updated_idx" on "ntf_channel_connection" ("environment_id", "updated_at", "id")`);
    this.addSql(`create index "ntf_channel_connection_created_idx" on "ntf_channel_connection" ("environment_id", "created_at", "id")`);
    this.addSql(`alter table "ntf_channel_connection" add constraint "ntf_channel_connection_environment_identifier_unique" unique ("environment_id", "identifier")`);
    this.addSql(`create table "ntf_environment" ("id" text not null, "organization_id" text not null, "name" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "ntf_environment_pkey" primary key ("id"))`);
    this.addSql(`create index "ntf_environment_organization_idx" on "ntf_environment" ("organization_id")`);
    this.addSql(`create table "ntf_execution_detail" ("id" text not null, "environment_id" text not null, "organization_id" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "job_id" text not null, "notification_id" text not null, "workflow_id" text not null, "subscriber_id" text not null, "external_subscriber_id" text not null, "message_id" text null, "provider_id" text null, "transaction_id" text not null, "channel" text not null, "detail" text not null, "source" text not null default 'Internal', "status" text not null, "is_test" boolean not null default false, "is_retry" boolean not null default false, "raw" text null, "webhook_status" text null, constraint "ntf_execution_detail_pkey" primary key ("id"))`);
    this.addSql(`create index "ntf_execution_detail_notification_idx" on "ntf_execution_detail" ("notification_id", "created_at", "id")`);
    this.addSql(`create index "ntf_execution_detail_job_idx" on "ntf_execution_detail" ("job_id", "created_at", "id")`);
    this.addSql(`create table "ntf_idempotency_record" ("id" text not null, "environment_id" text not null, "key" text not null, "fingerprint" text not null, "status" text not null, "status_code" int null, "response_body" jsonb null, "locked_until" timestamptz not null, "expires_at" timestamptz not null, "created_at" timestamptz not null, constraint "ntf_idempotency_record_pkey" primary key ("id"))`);
    this.addSql(`create index "ntf_idempotency_record_expires_idx" on "ntf_idempotency_record" ("expires_at")`);
    this.addSql(`alter table "ntf_idempotency_record" add constraint "ntf_idempotency_record_key_unique" unique ("environment_id", "key")`);
    this.addSql(`create table "ntf_integration" ("id" text not null, "environment_id" text not null, "organization_id" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "identifier" text not null, "provider_id" text not null, "channel" text null, "kind" text not null default 'delivery', "credentials_encrypted" text null, "configurations" jsonb not null, "active" boolean not null default false, "primary" boolean not null default false, "priority" int not null default 0, "conditions" jsonb not null, "deleted" boolean not null default false, "deleted_at" timestamptz null, "deleted_by" text null, "version" int not null default 0, constraint "ntf_integration_pkey" primary key ("id"))`);
    this.addSql(`create index "ntf_integration_organization_created_idx" on "ntf_integration" ("organization_id", "created_at", "id")`);
    this.addSql(`create index "ntf_integration_environment_created_idx" on "ntf_integration" ("environment_id", "created_at", "id")`);
    this.addSql(`alter table "ntf_integration" add constraint "ntf_integration_environment_identifier_unique" unique ("environment_id", "identifier")`);
    this.addSql(`create table "ntf_job" ("id" text not null, "environment_id" text not null, "organization_id" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "notification_id" text not null, "subscriber_id" text not null, "external_subscriber_id" text not null, "workflow_id" text not null, "identifier" text not null, "transaction_id" text not null, "parent_id" text null, "type" text not null, "status" text not null default 'pending', "step" jsonb not null, "digest" jsonb null, "payload" jsonb not null, "overrides" jsonb not null, "tenant" jsonb null, "actor_id" text null, "provider_id" text not null, "error" jsonb null, "merged_digest_id" text null, "expire_at" timestamptz null, constraint "ntf_job_pkey" primary key ("id"))`);
    this.addSql(`create index "ntf_job_parent_idx" on "ntf_job" ("parent_id")`);
    this.addSql(`create index "ntf_job_transaction_idx" on "ntf_job" ("environment_id", "transaction_id")`);
    this.addSql(`create index "ntf_job_notification_idx" on "ntf_job" ("notification_id", "created_at", "id")`);
    this.addSql(`create table "ntf_message" ("id" text not null, "environment_id" text not null, "organization_id" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "notification_id" text not null, "subscriber_id" text not null, "job_id" text null, "workflow_id" text null, "message_template_id" text null, "template_identifier" text null, "transaction_id" text not null, "channel" text not null, "provider_id" text null, "subject" text null, "title" text null, "content" jsonb null, "cta" jsonb not null, "payload" jsonb not null, "overrides" jsonb not null, "email" text null, "phone" text null, "direct_webhook_url" text null, "device_tokens" text[] null, "feed_id" text null, "read" boolean not null default false, "seen" boolean not null default false, "archived" boolean not null default false, "last_read_date" timestamptz null, "last_seen_date" timestamptz null, "snoozed_until" timestamptz null, "status" text not null default 'sent', "error_id" text null, "error_text" text null, "provider_message_id" text null, "tags" text[] not null, "context_keys" text[] not null, "deleted" boolean not null default false, constraint "ntf_message_pkey" primary key ("id"))`);
    this.addSql(`alter table "ntf_message" add constraint "ntf_message_job_unique" unique ("job_id")`);
    this.addSql(`create index "ntf_message_environment_created_idx" on "ntf_message" ("environment_id", "created_at", "id")`);
    this.addSql(`create index "ntf_message_notification_idx" on "ntf_message" ("notification_id")`);
    this.addSql(`create index "ntf_message_transaction_idx" on "ntf_message" ("environment_id", "transaction_id")`);
    this.addSql(`create index "ntf_message_subscriber_idx" on "ntf_message" ("environment_id", "subscriber_id", "created_at", "id")`);
    this.addSql(`create table "ntf_notification" ("id" text not null, "environment_id" text not null, "organization_id" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "subscriber_id" text not null, "workflow_id" text not null, "transaction_id" text not null, "digested_notification_id" text null, "channels" text[] not null, "payload" jsonb not null, "to" jsonb not null, "tags" text[] not null, "controls" jsonb null, "tenant" jsonb null, "actor" jsonb null, "context" jsonb null, "critical" boolean not null default false, "expire_at" timestamptz null, constraint "ntf_notification_pkey" primary key ("id"))`);
    this.addSql(`create index "ntf_notification_subscriber_idx" on "ntf_notification" ("environment_id", "subscriber_id", "created_at", "id")`);
    this.addSql(`create index "ntf_notification_transaction_idx" on "ntf_notification" ("environment_id", "transaction_id")`);
    this.addSql(`create index "ntf_notification_environment_created_idx" on "ntf_notification" ("environment_id", "created_at", "id")`);
    this.addSql(`create table "ntf_subscriber" ("id" text not null, "environment_id" text not null, "organization_id" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "subscriber_id" text not null, "first_name" text null, "last_name" text null, "email" text null, "phone" text null, "avatar" text null, "locale" text null, "timezone" text null, "data" jsonb null, "channels" jsonb not null, "is_online" boolean null, "last_online_at" timestamptz null, "deleted" boolean not null default false, "version" int not null default 0, constraint "ntf_subscriber_pkey" primary key ("id"))`);
    this.addSql(`create index "ntf_subscriber_environment_created_idx" on "ntf_subscriber" ("environment_id", "created_at", "id")`);
    this.addSql(`alter table "ntf_subscriber" add constraint "ntf_subscriber_environment_subscriber_unique" unique ("environment_id", "subscriber_id")`);
    this.addSql(`create table "ntf_tenant" ("id" text not null, "environment_id" text not null, "organization_id" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "identifier" text not null, "name" text null, "data" jsonb null, constraint "ntf_tenant_pkey" primary key ("id"))`);
    this.addSql(`alter table "ntf_tenant" add constraint "ntf_tenant_environment_identifier_unique" unique ("environment_id", "identifier")`);
    this.addSql(`create table "ntf_workflow" ("id" text not null, "environment_id" text not null, "organization_id" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "identifier" text not null, "name" text not null, "description" text not null default '', "active" boolean not null default true, "critical" boolean not null default false, "tags" text[] not null, "preference_settings" jsonb not null, "steps" jsonb not null, "origin" text not null default 'api', constraint "ntf_workflow_pkey" primary key ("id"))`);
    this.addSql(`alter table "ntf_workflow" add constraint "ntf_workflow_environment_identifier_unique" unique ("environment_id", "identifier")`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "ntf_workflow" cascade');
    this.addSql('drop table if exists "ntf_tenant" cascade');
    this.addSql('drop table if exists "ntf_subscriber" cascade');
    this.addSql('drop table if exists "ntf_notification" cascade');
    this.addSql('drop table if exists "ntf_message" cascade');
    this.addSql('drop table if exists "ntf_job" cascade');
    this.addSql('drop table if exists "ntf_integration" cascade');
    this.addSql('drop table if exists "ntf_idempotency_record" cascade');
    this.addSql('drop table if exists "ntf_execution_detail" cascade');
    this.addSql('drop table if exists "ntf_environment" cascade');
    this.addSql('drop table if exists "ntf_channel_connection" cascade');
    this.addSql('drop table if exists "ntf_api_key" cascade');
  }
}
