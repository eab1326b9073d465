import { Inject, Injectable, Logger, type Provider, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { CHANNEL_TYPES } from '../common/enums';
import { NOTIFICATIONS_OPTIONS } from '../notifications.constants';
import { InvalidNotificationsOptionsError, type ResolvedNotificationsOptions } from '../notifications.options';
import { CHAT_PROVIDERS } from './chat';
import type { DeliveryProvider } from './delivery-provider';
import { EMAIL_PROVIDERS } from './email';
import { PUSH_PROVIDERS } from './push';
import { SDK_BACKED_PROVIDERS } from './sdk-backed.providers';
import { SMS_PROVIDERS } from './sms';

/**
 * The delivery providers the module ships. Each is a plain Nest provider of the module.
 * @publicApi
 */
export const BUILT_IN_DELIVERY_PROVIDERS: readonly Type<DeliveryProvider>[] = Object.freeze([
  ...EMAIL_PROVIDERS,
  ...SMS_PROVIDERS,
  ...CHAT_PROVIDERS,
  ...PUSH_PROVIDERS,
  ...SDK_BACKED_PROVIDERS,
]);

/**
 * Token of every delivery provider instance (`DeliveryProvider[]`): the built-in ones first, then the
 * host's `options.providers` in their order. {@link DeliveryProviderRegistry} is the way to read it.
 */
export const DELIVERY_PROVIDERS = 'NOTIFICATIONS:DELIVERY_PROVIDERS';

/**
 * Builds the {@link DELIVERY_PROVIDERS} list: the built-in instances, then one instance of each host
 * class created with `moduleRef.create`.
 *
 * Why `ModuleRef.create` rather than registering the host classes as providers: `options.providers`
 * may come from a `forRootAsync` factory, which runs after the module's provider list is fixed. Creating
 * them here works the same for `forRoot` and `forRootAsync`, still resolving their constructor
 * dependencies through Nest DI in the module's scope.
 * @throws InvalidNotificationsOptionsError when a host instance is not a usable provider, or two host
 *   providers claim the same `providerId`.
 */
export async function createDeliveryProviders(
  moduleRef: ModuleRef,
  options: ResolvedNotificationsOptions,
  builtIns: readonly DeliveryProvider[],
): Promise<DeliveryProvider[]> {
  const hostProviders = await Promise.all(options.providers.map((type) => moduleRef.create(type)));
  const seen = new Map<string, string>();
  hostProviders.forEach((provider, index) => {
    const className = options.providers[index].name || `providers[${index}]`;
    assertUsableProvider(provider, className);
    const previous = seen.get(provider.providerId);
    if (previous) {
      throw new InvalidNotificationsOptionsError(
        `\`providers\` has two providers with providerId "${provider.providerId}" (${previous} and ${className}); keep one.`,
      );
    }
    seen.set(provider.providerId, className);
  });
  return [...builtIns, ...hostProviders];
}

/**
 * Every delivery provider the module knows, by `providerId`: the built-in ones and the host's
 * `options.providers`. A host provider with a built-in `providerId` replaces the built-in one.
 * @publicApi
 */
@Injectable()
export class DeliveryProviderRegistry {
  private readonly logger = new Logger(DeliveryProviderRegistry.name);
  private readonly byId = new Map<string, DeliveryProvider>();

  /** @param providers Built-in ones first: a later provider with the same `providerId` wins. */
  constructor(@Inject(DELIVERY_PROVIDERS) providers: readonly DeliveryProvider[]) {
    for (const provider of providers) {
      const replaced = this.byId.get(provider.providerId);
      if (replaced) {
        this.logger.log(`Delivery provider "${provider.providerId}": ${provider.constructor.name} replaces ${replaced.constructor.name}`);
      }
      this.byId.set(provider.providerId, provider);
    }
  }

  /** The provider of an integration's `providerId`, or undefined when none is registered. */
  get(providerId: string): DeliveryProvider | undefined {
    return this.byId.get(providerId);
  }

  /** Every registered provider, one per `providerId`. */
  list(): DeliveryProvider[] {
    return [...this.byId.values()];
  }
}

/**
 * The module's provider entries for delivery: the built-in provider classes, the {@link DELIVERY_PROVIDERS}
 * factory, and the {@link DeliveryProviderRegistry}. `NotificationsModule` spreads them into its providers.
 * (Declared after the registry class: decorated classes are not hoisted.)
 */
export const DELIVERY_PROVIDER_MODULE_PROVIDERS: readonly Provider[] = Object.freeze([
  ...BUILT_IN_DELIVERY_PROVIDERS,
  {
    provide: DELIVERY_PROVIDERS,
    useFactory: (moduleRef: ModuleRef, options: ResolvedNotificationsOptions, ...builtIns: DeliveryProvider[]) =>
      createDeliveryProviders(moduleRef, options, builtIns),
    inject: [ModuleRef, NOTIFICATIONS_OPTIONS, ...BUILT_IN_DELIVERY_PROVIDERS],
  },
  DeliveryProviderRegistry,
]);

function assertUsableProvider(provider: DeliveryProvider, className: string): void {
  const channels: readonly string[] = CHANNEL_TYPES.filter((channel) => channel !== 'in_app');
  if (typeof provider.providerId !== 'string' || provider.providerId.trim() === '') {
    throw new InvalidNotificationsOptionsError(`provider ${className} needs a non-empty string \`providerId\`.`);
  }
  if (!channels.includes(provider.channel)) {
    throw new InvalidNotificationsOptionsError(`provider ${className} has channel "${String(provider.channel)}"; it must be one of: ${channels.join(', ')}.`);
  }
  if (typeof provider.send !== 'function') {
    throw new InvalidNotificationsOptionsError(`provider ${className} needs a \`send(message, credentials)\` method.`);
  }
}
