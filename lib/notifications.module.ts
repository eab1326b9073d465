import { MikroORM } from '@mikro-orm/core';
import { getMikroORMToken, MikroOrmModule } from '@mikro-orm/nestjs';
import { type DynamicModule, Module, type OnApplicationBootstrap, type Provider, type Type } from '@nestjs/common';
import { ApiKeyGuard } from './auth/api-key.guard';
import { ApiKeyValidator } from './auth/api-key-validator';
import { HashedApiKeyValidator } from './auth/hashed-api-key.validator';
import { ChannelConnectionsController } from './channel-connections/channel-connections.controller';
import { ChannelConnectionsService } from './channel-connections/channel-connections.service';
import { NotificationsDatabase } from './common/database';
import { JobScheduler } from './delivery/job-scheduler';
import { NotificationsQueue } from './delivery/notifications-queue';
import { NotificationsWorker } from './delivery/notifications-worker';
import { StepRunner } from './delivery/step-runner';
import { ChannelStep } from './delivery/steps/channel.step';
import { CustomStep } from './delivery/steps/custom.step';
import { DelayStep } from './delivery/steps/delay.step';
import { DigestStep } from './delivery/steps/digest.step';
import { HttpRequestStep } from './delivery/steps/http-request.step';
import { InAppStep } from './delivery/steps/in-app.step';
import { ThrottleStep } from './delivery/steps/throttle.step';
import { TriggerStep } from './delivery/steps/trigger.step';
import { TemplateRenderer } from './delivery/template-renderer';
import { DeliveryProviderRegistry, DELIVERY_PROVIDER_MODULE_PROVIDERS } from './providers/delivery-provider.registry';
import { NotificationsExceptionFilter } from './common/errors/notifications-exception.filter';
import { AesGcmSecretCipher, SecretCipher } from './common/secret-cipher';
import { EnvironmentDirectory } from './environments/environment-directory';
import { EnvironmentsService } from './environments/environments.service';
import { EventsController } from './events/events.controller';
import { EventsService } from './events/events.service';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyService } from './idempotency/idempotency.service';
import { IntegrationsController } from './integrations/integrations.controller';
import { IntegrationsService } from './integrations/integrations.service';
import { MessagesController } from './messages/messages.controller';
import { MessagesService } from './messages/messages.service';
import { SubscriberFeedController } from './messages/subscriber-feed.controller';
import { SubscriberMessagesController } from './messages/subscriber-messages.controller';
import { NOTIFICATIONS_OPTIONS } from './notifications.constants';
import { NotificationsController } from './notifications/notifications.controller';
import { NotificationsService } from './notifications/notifications.service';
import { NOTIFICATIONS_ENTITIES } from './notifications.entities';
import { ASYNC_OPTIONS_TYPE, NotificationsConfigurableModule, OPTIONS_TYPE, RAW_NOTIFICATIONS_OPTIONS } from './notifications.module-definition';
import { type NotificationsModuleExtras, type NotificationsModuleOptions, type ResolvedNotificationsOptions, resolveNotificationsOptions } from './notifications.options';
import { SubscribersController } from './subscribers/subscribers.controller';
import { SubscribersService } from './subscribers/subscribers.service';
import { TenantsService } from './tenants/tenants.service';
import { WorkflowsService } from './workflows/workflows.service';

/** Extra providers appended last, so they override the module's own (e.g. a custom ApiKeyValidator). */
interface ExtraProviders {
  extraProviders?: Provider[];
}

/** `forRoot` argument: the options plus the extras. @publicApi */
export type NotificationsModuleRootOptions = typeof OPTIONS_TYPE & ExtraProviders;
/** `forRootAsync` argument. @publicApi */
export type NotificationsModuleAsyncOptions = typeof ASYNC_OPTIONS_TYPE & ExtraProviders;

/** The REST API. */
const CONTROLLERS: Type[] = [SubscribersController, SubscriberMessagesController, IntegrationsController, ChannelConnectionsController, NotificationsController, MessagesController, SubscriberFeedController, EventsController];

/** One handler per step kind (lib/delivery/steps). */
const STEP_HANDLERS: Type[] = [TriggerStep, InAppStep, ChannelStep, DelayStep, DigestStep, ThrottleStep, CustomStep, HttpRequestStep];

/** What hosts can inject. */
const EXPORTED: Array<Type | string | (abstract new (...args: never[]) => unknown)> = [
  NOTIFICATIONS_OPTIONS,
  EnvironmentsService,
  SubscribersService,
  IntegrationsService,
  ChannelConnectionsService,
  MessagesService,
  NotificationsService,
  WorkflowsService,
  TenantsService,
  EventsService,
  ApiKeyGuard,
  ApiKeyValidator,
  SecretCipher,
  NotificationsDatabase,
  NotificationsQueue,
  DeliveryProviderRegistry,
  TemplateRenderer,
];

/**
 * A complete notification service for a Nest app: subscribers, integrations, channel connections,
 * in-app messages, notifications with their jobs and execution logs, served under `/v1` with the
 * wire contract of Novu's public API.
 *
 * @example
 * ```ts
 * @Module({
 *   imports: [
 *     MikroOrmModule.forRoot({ ...yourConfig, entities: [...NOTIFICATIONS_ENTITIES] }),
 *     NotificationsModule.forRoot({ encryptionKey: process.env.NOTIFICATIONS_KEY! }),
 *   ],
 * })
 * export class AppModule {}
 * ```
 * @publicApi
 */
@Module({})
export class NotificationsModule extends NotificationsConfigurableModule implements OnApplicationBootstrap {
  constructor(private readonly workflows: WorkflowsService) {
    super();
  }

  /** Registers the module with options known up front. */
  static override forRoot(options: NotificationsModuleRootOptions): DynamicModule {
    const { extraProviders, isGlobal, registerControllers, contextName, ...rest } = options;
    // Spread what the builder returns first: it sets `imports: []`, which would erase ours (nestjs/nest#11097).
    const base = super.forRoot(rest as typeof OPTIONS_TYPE);
    return NotificationsModule.assemble(base, { isGlobal, registerControllers, contextName }, extraProviders);
  }

  /** Registers the module with options from a factory, a class, or an existing provider. */
  static override forRootAsync(options: NotificationsModuleAsyncOptions): DynamicModule {
    const { extraProviders, isGlobal, registerControllers, contextName, ...rest } = options;
    const base = super.forRootAsync(rest as typeof ASYNC_OPTIONS_TYPE);
    return NotificationsModule.assemble(base, { isGlobal, registerControllers, contextName }, extraProviders);
  }

  private static assemble(base: DynamicModule, extras: NotificationsModuleExtras, extraProviders: Provider[] = []): DynamicModule {
    const ormToken = extras.contextName ? getMikroORMToken(extras.contextName) : MikroORM;
    const providers: Provider[] = [
      {
        provide: NOTIFICATIONS_OPTIONS,
        useFactory: (raw: NotificationsModuleOptions) => resolveNotificationsOptions(raw),
        inject: [RAW_NOTIFICATIONS_OPTIONS],
      },
      { provide: NotificationsDatabase, useFactory: (orm: MikroORM) => new NotificationsDatabase(orm), inject: [ormToken] },
      {
        provide: SecretCipher,
        useFactory: (options: ResolvedNotificationsOptions) => new AesGcmSecretCipher(options.encryptionKey),
        inject: [NOTIFICATIONS_OPTIONS],
      },
      { provide: ApiKeyValidator, useClass: HashedApiKeyValidator },
      ApiKeyGuard,
      NotificationsExceptionFilter,
      IdempotencyService,
      IdempotencyInterceptor,
      EnvironmentDirectory,
      EnvironmentsService,
      WorkflowsService,
      TenantsService,
      SubscribersService,
      IntegrationsService,
      ChannelConnectionsService,
      MessagesService,
      NotificationsService,
      NotificationsQueue,
      EventsService,
      ...DELIVERY_PROVIDER_MODULE_PROVIDERS,
      TemplateRenderer,
      JobScheduler,
      ...STEP_HANDLERS,
      StepRunner,
      NotificationsWorker,
    ];
    return {
      ...base,
      global: extras.isGlobal ?? false,
      imports: [...(base.imports ?? []), MikroOrmModule.forFeature([...NOTIFICATIONS_ENTITIES], extras.contextName)],
      controllers: extras.registerControllers === false ? [] : CONTROLLERS,
      providers: [...(base.providers ?? []), ...providers, ...extraProviders],
      exports: EXPORTED,
    };
  }

  /** Stores the code-first workflows in every existing environment. */
  async onApplicationBootstrap(): Promise<void> {
    await this.workflows.syncCodeFirstEverywhere();
  }
}
