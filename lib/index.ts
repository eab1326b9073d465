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

// The worker and its queue
export { JOBS_QUEUE, NotificationsQueue, type QueuedJobData, type QueueEntry } from './delivery/notifications-queue';
export { NotificationsWorker } from './delivery/notifications-worker';
export { type TemplateContext, TemplateRenderer, TemplateRenderError } from './delivery/template-renderer';

// Delivery providers
export {
  ApnsProvider,
  basicAuth,
  BUILT_IN_DELIVERY_PROVIDERS,
  type ChatWebhookBody,
  ChatWebhookProvider,
  type DeliveryChannel,
  type DeliveryConnection,
  DeliveryError,
  type DeliveryErrorOptions,
  type DeliveryMessage,
  DeliveryProvider,
  DeliveryProviderRegistry,
  type DeliveryRecipient,
  type DeliveryResult,
  type DeviceSendResult,
  type DeviceTokenOutcome,
  DiscordProvider,
  type EmailParts,
  emailParts,
  type EmailWebhookBody,
  EmailWebhookProvider,
  ExpoProvider,
  FcmProvider,
  GenericSmsProvider,
  htmlToText,
  isTransientStatus,
  MailgunProvider,
  MailjetProvider,
  MattermostProvider,
  MessageBirdProvider,
  MsTeamsProvider,
  NexmoProvider,
  NodemailerProvider,
  OneSignalProvider,
  PlivoProvider,
  PostmarkProvider,
  PushWebhookProvider,
  type PushWebhookBody,
  redactSecrets,
  ResendProvider,
  SendgridProvider,
  sendToDeviceTokens,
  SendinblueProvider,
  SesProvider,
  signWebhookBody,
  SlackProvider,
  type SmsWebhookBody,
  SnsProvider,
  TelegramProvider,
  TelnyxProvider,
  TwilioProvider,
  type VendorFailure,
  type VendorHeaders,
  type VendorRequest,
  vendorRequest,
  type VendorResponse,
  vendorUrl,
  verifyWebhookSignature,
  WEBHOOK_IDEMPOTENCY_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WebhookDeliveryProvider,
  type WebhookEnvelope,
} from './providers';

// Services
export { type CreatedEnvironment, EnvironmentsService } from './environments/environments.service';
export { type SubscriberChannelInput, SubscribersService, type UpsertSubscriberInput } from './subscribers/subscribers.service';
export { type CreateIntegrationInput, type IntegrationCredentials, IntegrationsService } from './integrations/integrations.service';
export {
  type FeedPage,
  type FeedSubscriber,
  type ListFeedQuery,
  type ListMessagesQuery,
  MessagesService,
  type MessagesPage,
} from './messages/messages.service';
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
  type ListNotificationsQuery,
  type NotificationActivitiesPage,
  type NotificationActivity,
  NotificationsService,
  type NotificationSubscriberSummary,
  type NotificationWorkflowSummary,
} from './notifications/notifications.service';
export { WorkflowsService } from './workflows/workflows.service';
export { type CreateTenantInput, TenantsService } from './tenants/tenants.service';
export { EventsService } from './events/events.service';
export {
  MAX_BULK_EVENTS,
  MAX_RECIPIENTS_PER_EVENT,
  TRIGGER_EVENT_STATUSES,
  type TriggerContextValue,
  type TriggerEventInput,
  type TriggerEventResponse,
  type TriggerEventStatus,
  type TriggerRecipientInput,
  type TriggerSubscriberInput,
  type TriggerTenantInput,
  type TriggerTopicInput,
} from './events/trigger-event';
export type {
  CustomStepContext,
  CustomStepHandler,
  HttpRequestDefinition,
  StepDefinition,
  StepMetadata,
  StepTemplate,
  StoredStep,
  WorkflowDefinition,
} from './workflows/workflow-definition';

// Controllers
export { SubscribersController } from './subscribers/subscribers.controller';
export { IntegrationsController } from './integrations/integrations.controller';
export { NotificationsController } from './notifications/notifications.controller';
export { ChannelConnectionsController } from './channel-connections/channel-connections.controller';
export { SubscriberMessagesController } from './messages/subscriber-messages.controller';
export { MessagesController } from './messages/messages.controller';
export { SubscriberFeedController } from './messages/subscriber-feed.controller';
export { EventsController } from './events/events.controller';

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
export { ListNotificationsQueryDto } from './notifications/dto/list-notifications-query.dto';
export { ActivitiesResponseDto } from './notifications/dto/activities-response.dto';
export { AuthDto, GetChannelConnectionResponseDto, WorkspaceDto } from './channel-connections/dto/channel-connection-response.dto';
export { ListChannelConnectionsQueryDto } from './channel-connections/dto/list-channel-connections-query.dto';
export { ListChannelConnectionsResponseDto } from './channel-connections/dto/list-channel-connections-response.dto';
export { MAX_MARK_AS_IDS, MessageMarkAsRequestDto } from './messages/dto/message-mark-as-request.dto';
export { MessageResponseDto } from './messages/dto/message-response.dto';
export { ListMessagesQueryDto } from './messages/dto/list-messages-query.dto';
export { MessagesResponseDto } from './messages/dto/messages-response.dto';
export { GetNotificationsFeedQueryDto } from './messages/dto/feed-query.dto';
export { FeedResponseDto } from './messages/dto/feed-response.dto';
export { ACTOR_TYPES, ActorFeedItemDto, type ActorType, NotificationFeedItemDto, SubscriberFeedResponseDto } from './messages/dto/notification-feed-item.dto';
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
export { BulkTriggerEventDto, TriggerEventRequestDto } from './events/dto/trigger-event-request.dto';
export { TriggerEventResponseDto } from './events/dto/trigger-event-response.dto';
export { SubscriberChannelDto, SubscriberPayloadDto } from './events/dto/subscriber-payload.dto';
export { TenantPayloadDto } from './events/dto/tenant-payload.dto';
export { TopicPayloadDto, TRIGGER_RECIPIENT_TYPES, type TriggerRecipientType } from './events/dto/topic-payload.dto';
export {
  ChannelOverrides,
  EmailChannelOverrides,
  SEVERITY_LEVELS,
  type SeverityLevel,
  StepsOverrides,
  TriggerOverrides,
} from './events/dto/trigger-overrides.dto';

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
