// The public API of nest-notifications. Everything not exported here is internal.

// Module and options
export { NotificationsModule, type NotificationsModuleAsyncOptions, type NotificationsModuleRootOptions } from './notifications.module';
export {
  InvalidNotificationsOptionsError,
  type NotificationsModuleExtras,
  type NotificationsModuleOptions,
  type ResolvedNotificationsOptions,
  type SessionPrincipal,
} from './notifications.options';
export { InjectNotificationsOptions, NOTIFICATIONS_OPTIONS } from './notifications.constants';
export { NOTIFICATIONS_ENTITIES } from './notifications.entities';
export { NOTIFICATIONS_MIGRATIONS } from './migrations';
export { createNotificationsOpenApiDocument } from './swagger';

// Auth
export { ApiKeyGuard } from './auth/api-key.guard';
export { type ApiKeyPrincipal, ApiKeyValidator } from './auth/api-key-validator';
export { type NotificationsPrincipal, Principal } from './auth/principal';

// Shared pieces hosts may use or swap
export { NotificationsDatabase } from './common/database';
export { SecretCipher } from './common/secret-cipher';
export { NotificationsExceptionFilter, type ErrorBody } from './common/errors/notifications-exception.filter';
export { type FieldErrors, RequestValidationException } from './common/errors/validation-errors';
export { ErrorDto, ValidationErrorDto, ConstraintValidationDto } from './common/dto/error.dto';
export { FieldFilterPartDto, StepFilterDto } from './common/dto/step-filter.dto';
export { NotificationTriggerVariableDto } from './common/dto/notification-trigger-variable.dto';
export * from './common/enums';
export type { FieldFilterPart, StepFilter } from './common/step-filter';

// Services
export { type CreatedEnvironment, EnvironmentsService } from './environments/environments.service';
export { type SubscriberChannelInput, SubscribersService, type UpsertSubscriberInput } from './subscribers/subscribers.service';
export { type CreateIntegrationInput, type IntegrationCredentials, IntegrationsService } from './integrations/integrations.service';
export { MessagesService } from './messages/messages.service';
export {
  type ChannelConnectionOrderBy,
  type ChannelConnectionsPage,
  ChannelConnectionsService,
  type CreateChannelConnectionInput,
  type ListChannelConnectionsOptions,
  type ListChannelConnectionsQuery,
  type ListedChannelConnection,
  type OrderDirection,
} from './channel-connections/channel-connections.service';
export {
  type NotificationActivity,
  NotificationsService,
  type NotificationSubscriberSummary,
  type NotificationWorkflowSummary,
} from './notifications/notifications.service';
export { WorkflowsService } from './workflows/workflows.service';
export { type CreateTenantInput, TenantsService } from './tenants/tenants.service';
export type { StepDefinition, StepMetadata, StepTemplate, StoredStep, WorkflowDefinition } from './workflows/workflow-definition';

// Controllers
export { SubscribersController } from './subscribers/subscribers.controller';
export { IntegrationsController } from './integrations/integrations.controller';
export { NotificationsController } from './notifications/notifications.controller';
export { ChannelConnectionsController } from './channel-connections/channel-connections.controller';
export { SubscriberMessagesController } from './messages/subscriber-messages.controller';

// DTOs
export { ChannelCredentialsDto, ChannelSettingsDto, SubscriberResponseDto } from './subscribers/dto/subscriber-response.dto';
export { UpdateSubscriberOnlineFlagRequestDto } from './subscribers/dto/update-subscriber-online-flag.dto';
export { ConfigurationsDto, IntegrationResponseDto } from './integrations/dto/integration-response.dto';
export { CredentialsDto } from './integrations/dto/credentials.dto';
export {
  ActivityNotificationResponseDto,
  ActivityNotificationSubscriberResponseDto,
  ActivityNotificationTemplateResponseDto,
  ActivityTopicDto,
  NotificationTriggerDto,
} from './notifications/dto/activity-notification-response.dto';
export {
  ActivityNotificationExecutionDetailResponseDto,
  ActivityNotificationJobResponseDto,
  ActivityNotificationStepResponseDto,
  MessageTemplateDto,
} from './notifications/dto/activity-notification-job.dto';
export { DigestMetadataDto, DigestTimedConfigDto } from './notifications/dto/digest-metadata.dto';
export { AuthDto, GetChannelConnectionResponseDto, WorkspaceDto } from './channel-connections/dto/channel-connection-response.dto';
export { ListChannelConnectionsQueryDto } from './channel-connections/dto/list-channel-connections-query.dto';
export { ListChannelConnectionsResponseDto } from './channel-connections/dto/list-channel-connections-response.dto';
export { MAX_MARK_AS_IDS, MessageMarkAsRequestDto } from './messages/dto/message-mark-as-request.dto';
export { MessageResponseDto } from './messages/dto/message-response.dto';
export { EmailBlockDto, EmailBlockStylesDto } from './messages/dto/email-block.dto';
export { MessageActionDto, MessageActionResultDto, MessageButtonDto, MessageCtaDataDto, MessageCtaDto } from './messages/dto/message-cta.dto';
export {
  NotificationGroupDto,
  SubscriberPreferenceChannelsDto,
  WorkflowResponseDto,
  WorkflowTriggerDto,
} from './messages/dto/workflow-response.dto';
export {
  DelayRegularMetadataDto,
  DelayScheduledMetadataDto,
  DigestRegularMetadataDto,
  DigestTimedMetadataDto,
  NotificationStepDataDto,
  NotificationStepDto,
  ReplyCallbackDto,
  StepMessageTemplateDto,
  type StepMetadataDto,
  TimedConfigDto,
} from './messages/dto/notification-step.dto';

// Entities
export { EnvironmentEntity } from './environments/environment.entity';
export { ApiKeyEntity } from './environments/api-key.entity';
export { SubscriberEntity, type SubscriberChannel } from './subscribers/subscriber.entity';
export { IntegrationEntity, type IntegrationConfigurations } from './integrations/integration.entity';
export {
  ChannelConnectionEntity,
  type ChannelConnectionAuth,
  type ChannelConnectionWorkspace,
} from './channel-connections/channel-connection.entity';
export { WorkflowEntity, type WorkflowOrigin } from './workflows/workflow.entity';
export { TenantEntity } from './tenants/tenant.entity';
export { NotificationEntity } from './notifications/notification.entity';
export { JobEntity } from './notifications/job.entity';
export { ExecutionDetailEntity } from './notifications/execution-detail.entity';
export { MessageEntity, type MessageContentBlock, type MessageCta } from './messages/message.entity';
export { IdempotencyRecordEntity } from './idempotency/idempotency-record.entity';
