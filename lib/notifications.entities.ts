import { ChannelConnectionEntity } from './channel-connections/channel-connection.entity';
import { ApiKeyEntity } from './environments/api-key.entity';
import { EnvironmentEntity } from './environments/environment.entity';
import { IdempotencyRecordEntity } from './idempotency/idempotency-record.entity';
import { IntegrationEntity } from './integrations/integration.entity';
import { MessageEntity } from './messages/message.entity';
import { ExecutionDetailEntity } from './notifications/execution-detail.entity';
import { JobEntity } from './notifications/job.entity';
import { NotificationEntity } from './notifications/notification.entity';
import { SubscriberEntity } from './subscribers/subscriber.entity';
import { TenantEntity } from './tenants/tenant.entity';
import { WorkflowEntity } from './workflows/workflow.entity';

/**
 * Every entity of the module. Add them to your MikroORM `entities` (or use `autoLoadEntities`).
 * @publicApi
 */
export const NOTIFICATIONS_ENTITIES = [
  EnvironmentEntity,
  ApiKeyEntity,
  SubscriberEntity,
  IntegrationEntity,
  ChannelConnectionEntity,
  WorkflowEntity,
  TenantEntity,
  NotificationEntity,
  JobEntity,
  ExecutionDetailEntity,
  MessageEntity,
  IdempotencyRecordEntity,
] as const;
