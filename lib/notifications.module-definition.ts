import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { NotificationsModuleExtras, NotificationsModuleOptions } from './notifications.options';

/**
 * The builder writes the forRoot/forRootAsync plumbing (useFactory, useClass, useExisting). The extras
 * are declared here for typing only: {@link NotificationsModule} reads them straight from the
 * argument, because the builder's own handling of extras in `forRootAsync` is unreliable
 * (nestjs/nest#13372, #15661).
 */
export const {
  ConfigurableModuleClass: NotificationsConfigurableModule,
  MODULE_OPTIONS_TOKEN: RAW_NOTIFICATIONS_OPTIONS,
  OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<NotificationsModuleOptions>({ moduleName: 'Notifications' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createNotificationsOptions')
  .setExtras<NotificationsModuleExtras>({ isGlobal: false, registerControllers: true, contextName: undefined }, (definition) => definition)
  .build();
