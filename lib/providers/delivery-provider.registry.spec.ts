import { Injectable, Logger, type Provider } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { NOTIFICATIONS_OPTIONS } from '../notifications.constants';
import { InvalidNotificationsOptionsError, type NotificationsModuleOptions, resolveNotificationsOptions } from '../notifications.options';
import { type DeliveryMessage, DeliveryProvider, type DeliveryResult } from './delivery-provider';
import { BUILT_IN_DELIVERY_PROVIDERS, DELIVERY_PROVIDER_MODULE_PROVIDERS, DeliveryProviderRegistry } from './delivery-provider.registry';
import { EmailWebhookProvider } from './email/email-webhook.provider';
import { GenericSmsProvider } from './sms/generic-sms.provider';

const KEY = 'sixteen-chars-key';

/** Something the host's provider injects, to prove it is built through Nest DI. */
@Injectable()
class MailTransport {
  readonly sent: string[] = [];
}

/** A host provider replacing the built-in `email-webhook`. */
@Injectable()
class HostEmailProvider extends DeliveryProvider {
  readonly providerId = 'email-webhook';
  readonly channel = 'email';

  constructor(readonly transport: MailTransport) {
    super();
  }

  async send(message: DeliveryMessage): Promise<DeliveryResult> {
    this.transport.sent.push(message.jobId);
    return { id: `host-${message.jobId}` };
  }
}

/** A host provider for a vendor the module does not ship. */
@Injectable()
class HostSlackProvider extends DeliveryProvider {
  readonly providerId = 'slack';
  readonly channel = 'chat';

  async send(): Promise<DeliveryResult> {
    return {};
  }
}

@Injectable()
class SecondSlackProvider extends HostSlackProvider {}

@Injectable()
class InAppProvider extends HostSlackProvider {
  override readonly channel = 'in_app' as never;
}

async function registryWith(options: Partial<NotificationsModuleOptions>, extra: Provider[] = []): Promise<DeliveryProviderRegistry> {
  const moduleRef = await Test.createTestingModule({
    providers: [
      // A factory, as `forRootAsync` gives: host classes are only known once it has run.
      { provide: NOTIFICATIONS_OPTIONS, useFactory: async () => resolveNotificationsOptions({ encryptionKey: KEY, ...options }) },
      ...DELIVERY_PROVIDER_MODULE_PROVIDERS,
      ...extra,
    ],
  }).compile();
  return moduleRef.get(DeliveryProviderRegistry);
}

describe('DeliveryProviderRegistry', () => {
  // The registry logs each replacement of a built-in provider; keep the run's output to real problems.
  beforeAll(() => Logger.overrideLogger(['error', 'warn']));

  it('knows the built-in providers by providerId: the generic webhooks and every vendor of issue 4', async () => {
    const registry = await registryWith({});
    const builtIn = {
      email: ['email-webhook', 'sendgrid', 'mailgun', 'postmark', 'resend', 'mailjet', 'sendinblue', 'nodemailer', 'ses'],
      sms: ['generic-sms', 'twilio', 'nexmo', 'plivo', 'telnyx', 'messagebird', 'sns'],
      chat: ['chat-webhook', 'slack', 'discord', 'msteams', 'mattermost', 'telegram'],
      push: ['push-webhook', 'fcm', 'apns', 'expo', 'one-signal'],
    };

    const listed = registry.list().map((provider) => [provider.providerId, provider.channel]);
    expect([...listed].sort()).toEqual(Object.entries(builtIn).flatMap(([channel, ids]) => ids.map((id) => [id, channel])).sort());
    expect(registry.get('generic-sms')).toBeInstanceOf(GenericSmsProvider);
    expect(registry.get('mandrill')).toBeUndefined();
    expect(BUILT_IN_DELIVERY_PROVIDERS).toHaveLength(27);
  });

  it("adds the host's providers, built through DI, and lets one replace the built-in with its providerId", async () => {
    const registry = await registryWith({ providers: [HostEmailProvider, HostSlackProvider] }, [MailTransport]);

    const email = registry.get('email-webhook');
    expect(email).toBeInstanceOf(HostEmailProvider);
    expect(email).not.toBeInstanceOf(EmailWebhookProvider);
    expect((email as HostEmailProvider).transport).toBeInstanceOf(MailTransport);
    expect(registry.get('slack')).toBeInstanceOf(HostSlackProvider);
    // Replaced in place: the list keeps one provider per providerId.
    const ids = registry.list().map((provider) => provider.providerId);
    expect(ids).toHaveLength(BUILT_IN_DELIVERY_PROVIDERS.length);
    expect(new Set(ids).size).toBe(ids.length);

    const result = await email?.send({ jobId: 'job-1' } as DeliveryMessage, {});
    expect(result).toEqual({ id: 'host-job-1' });
    expect((email as HostEmailProvider).transport.sent).toEqual(['job-1']);
  });

  it('refuses two host providers with the same providerId', async () => {
    await expect(registryWith({ providers: [HostSlackProvider, SecondSlackProvider] })).rejects.toThrow(
      /two providers with providerId "slack" \(HostSlackProvider and SecondSlackProvider\)/,
    );
  });

  it('refuses a host provider on a channel providers cannot deliver', async () => {
    await expect(registryWith({ providers: [InAppProvider] })).rejects.toThrow(InvalidNotificationsOptionsError);
  });

  it('last one wins when built directly from a list', () => {
    const builtIn = new GenericSmsProvider();
    const replacement = new GenericSmsProvider();

    const registry = new DeliveryProviderRegistry([builtIn, replacement]);

    expect(registry.get('generic-sms')).toBe(replacement);
    expect(registry.list()).toHaveLength(1);
  });
});

describe('options.providers', () => {
  it('defaults to no host providers', () => {
    expect(resolveNotificationsOptions({ encryptionKey: KEY }).providers).toEqual([]);
  });

  it('keeps the classes in order, frozen', () => {
    const { providers } = resolveNotificationsOptions({ encryptionKey: KEY, providers: [HostSlackProvider, HostEmailProvider] });

    expect(providers).toEqual([HostSlackProvider, HostEmailProvider]);
    expect(Object.isFrozen(providers)).toBe(true);
  });

  it.each([
    ['an instance', new HostSlackProvider()],
    ['an arrow function', () => new HostSlackProvider()],
    ['a class without send', class NotAProvider {}],
    ['a string', 'slack'],
  ])('refuses %s, naming the entry', (_case, entry) => {
    expect(() => resolveNotificationsOptions({ encryptionKey: KEY, providers: [HostSlackProvider, entry as never] })).toThrow(/`providers\[1\]` must be a class/);
  });

  it('refuses a value that is not an array', () => {
    expect(() => resolveNotificationsOptions({ encryptionKey: KEY, providers: HostSlackProvider as never })).toThrow(InvalidNotificationsOptionsError);
  });
});
