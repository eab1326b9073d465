import { ChannelConnectionsService, type IntegrationCredentials, RequestValidationException } from '../../lib';
import { useTestApp } from '../fixtures/app';
import { createEnvironment, createIntegration, createSubscriber, type TestEnvironment } from '../fixtures/factories';
import { type DeliveredRun, deliverThroughVendor, retryLines, VENDOR_TEST_OPTIONS } from '../fixtures/vendor-delivery';
import { discord, mattermost, msteams, slackApi, slackWebhook, telegram } from '../fixtures/vendors/chat-vendors';
import { type ReceivedRequest, WebhookReceiver } from '../fixtures/webhook-receiver';

/**
 * The chat vendors end to end: trigger → worker → provider → a local server answering as Slack,
 * Discord, Microsoft Teams, Mattermost and Telegram document it. For each: the exact request, success
 * (the vendor's id on the message, its answer in `Message sent`), a permanent error (no retry, the
 * vendor's answer in the failed detail, no secret anywhere) and a transient error retried to success.
 */

const TEMPLATE = {
  content: 'Hi {{ subscriber.firstName }}, order {{ payload.orderId }} has shipped',
  cta: { type: 'redirect' as const, data: { url: 'https://shop.example.com/orders/{{ payload.orderId }}' } },
};
const PAYLOAD = { orderId: 'A-1' };
const TEXT = 'Hi Ann, order A-1 has shipped';
const CTA_URL = 'https://shop.example.com/orders/A-1';

describe('chat providers against local vendor servers', () => {
  const t = useTestApp('fastify', { options: VENDOR_TEST_OPTIONS });
  let server: WebhookReceiver;

  beforeAll(async () => {
    server = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());

  /** One delivery of the shared template to `to` through `providerId`, in `env` (whose integration gets `credentials` on first use). */
  const deliver = (providerId: string, env: TestEnvironment, credentials: IntegrationCredentials, to: Record<string, unknown>, overrides?: Record<string, unknown>) =>
    deliverThroughVendor(t, {
      providerId,
      channel: 'chat',
      credentials,
      to,
      env,
      template: TEMPLATE,
      payload: PAYLOAD,
      ...(overrides && { overrides: { providers: { [providerId]: overrides } } }),
    });

  const subscriber = (subscriberId: string, providerId: string, credentials: Record<string, unknown>) => ({
    subscriberId,
    firstName: 'Ann',
    channels: [{ providerId, credentials }],
  });

  function expectSent(run: DeliveredRun, providerId: string, id: string | null, raw: unknown): void {
    expect(run.job.status).toBe('completed');
    expect(run.message).toMatchObject({ status: 'sent', provider_id: providerId, provider_message_id: id, error_text: null });
    expect(run.job.details.find((d) => d.detail === 'Message sent')).toMatchObject({ status: 'Success', providerId, raw });
  }

  function expectFailedOnce(run: DeliveredRun, requests: ReceivedRequest[], failure: { text: string; errorId: string; response: unknown }): void {
    expect(requests).toHaveLength(1);
    expect(run.job.status).toBe('failed');
    expect(run.message).toMatchObject({ status: 'error', error_text: failure.text, error_id: failure.errorId, provider_message_id: null });
    expect(run.job.details.find((d) => d.detail === 'Unexpected provider error')).toMatchObject({
      status: 'Failed',
      raw: expect.objectContaining({ response: failure.response }) as unknown,
    });
    expect(retryLines(run.job)).toEqual([]);
  }

  function expectRetriedToSuccess(run: DeliveredRun, requests: ReceivedRequest[]): void {
    expect(requests).toHaveLength(2);
    expect(requests[1].rawBody.equals(requests[0].rawBody)).toBe(true);
    expect(run.job.status).toBe('completed');
    expect(run.message?.status).toBe('sent');
    expect(retryLines(run.job).map((d) => d.detail)).toContain('Message sent');
    expect(run.job.details.filter((d) => !d.isRetry).map((d) => d.detail)).not.toContain('Message sent');
  }

  /** Neither the execution log nor the job error may carry these (credentials, tokens, webhook secrets). */
  function expectNoSecrets(run: DeliveredRun, ...secrets: string[]): void {
    const stored = JSON.stringify({ details: run.job.details, error: run.job.error, errorText: run.message?.error_text });
    for (const secret of secrets) expect(stored).not.toContain(secret);
  }

  describe('slack', () => {
    const token = 'xoxb-2222222222-3333333333333-SlAcKbOtToKeNsEcReT';
    let env: TestEnvironment;
    let credentials: IntegrationCredentials;

    beforeAll(async () => {
      env = await createEnvironment(t.moduleRef, 'slack');
      credentials = { baseUrl: server.url('/slack-api') };
    });

    describe('incoming webhook (the subscriber’s webhook URL)', () => {
      const hook = (name: string) => `/services/T0001/B0001/${name}-hOoKsEcReT`;

      it('posts text and a link button to the webhook and records Slack’s answer (no message id)', async () => {
        server.respond(hook('ok'), slackWebhook.ok());
        const run = await deliver('slack', env, credentials, subscriber('sl-ann', 'slack', { webhookUrl: server.url(hook('ok')) }), { username: 'Shop bot' });

        const [request] = server.requestsTo(hook('ok'));
        expect(request.method).toBe('POST');
        expect(request.headers['content-type']).toBe('application/json');
        expect(request.headers.authorization).toBeUndefined();
        expect(request.body).toEqual({
          text: TEXT,
          blocks: [
            { type: 'section', text: { type: 'mrkdwn', text: TEXT } },
            { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open' }, url: CTA_URL }] },
          ],
          username: 'Shop bot',
        });
        expect(server.requests).toHaveLength(1);
        expectSent(run, 'slack', null, { status: 200, body: 'ok' });
        expect(run.message?.direct_webhook_url).toBe(server.url(hook('ok')));
      });

      it('fails permanently on an archived channel (410 channel_is_archived)', async () => {
        server.respond(hook('archived'), slackWebhook.error(410, 'channel_is_archived'));
        const run = await deliver('slack', env, credentials, subscriber('sl-bob', 'slack', { webhookUrl: server.url(hook('archived')) }));

        expectFailedOnce(run, server.requestsTo(hook('archived')), {
          text: 'Slack responded with 410: channel_is_archived',
          errorId: 'channel_is_archived',
          response: { status: 410, body: 'channel_is_archived' },
        });
        expectNoSecrets(run, 'archived-hOoKsEcReT');
      });

      it('retries a 500 and sends on the second try', async () => {
        server.respond(hook('flaky'), (_request, index) => (index === 0 ? slackWebhook.error(500, 'rollup_error') : slackWebhook.ok()));
        const run = await deliver('slack', env, credentials, subscriber('sl-cid', 'slack', { webhookUrl: server.url(hook('flaky')) }));

        expectRetriedToSuccess(run, server.requestsTo(hook('flaky')));
      });
    });

    describe('workspace app (chat.postMessage with the connection’s token)', () => {
      /** A subscriber with a Slack channel setting and a connection of the slack integration (`slack-chat`). */
      async function connected(subscriberId: string, channel: string): Promise<Record<string, unknown>> {
        await createSubscriber(t.moduleRef, env.environmentId, { subscriberId, firstName: 'Ann', channels: [{ providerId: 'slack', credentials: { channel } }] });
        await t.moduleRef.get(ChannelConnectionsService).create(env.environmentId, {
          channel: 'chat',
          providerId: 'slack',
          integrationIdentifier: 'slack-chat',
          subscriberId,
          workspace: { id: 'T0001', name: 'Acme' },
          auth: { accessToken: token },
        });
        return subscriber(subscriberId, 'slack', { channel });
      }

      it('posts to the subscriber’s channel with the bearer token and stores the ts', async () => {
        server.respond('/slack-api/chat.postMessage', slackApi.ok('C0AAA', '1795000000.000100', TEXT));
        const run = await deliver('slack', env, credentials, await connected('sl-dee', 'C0AAA'));

        const [request] = server.requestsTo('/slack-api/chat.postMessage');
        expect(request.method).toBe('POST');
        expect(request.headers.authorization).toBe(`Bearer ${token}`);
        expect(request.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(request.body).toEqual({
          channel: 'C0AAA',
          text: TEXT,
          blocks: [
            { type: 'section', text: { type: 'mrkdwn', text: TEXT } },
            { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open' }, url: CTA_URL }] },
          ],
        });
        expect(server.requests).toHaveLength(1);
        expectSent(run, 'slack', '1795000000.000100', { status: 200, body: expect.objectContaining({ ok: true, ts: '1795000000.000100' }) as unknown });
        expectNoSecrets(run, token);
      });

      it('fails permanently on { ok: false, error: channel_not_found } (HTTP 200), the error as errorId', async () => {
        server.respond('/slack-api/chat.postMessage', slackApi.error('channel_not_found'));
        const run = await deliver('slack', env, credentials, await connected('sl-eve', 'C0GONE'));

        expectFailedOnce(run, server.requestsTo('/slack-api/chat.postMessage'), {
          text: 'Slack chat.postMessage failed: channel_not_found',
          errorId: 'channel_not_found',
          response: { status: 200, body: { ok: false, error: 'channel_not_found' } },
        });
        expectNoSecrets(run, token);
      });

      it('cannot reach a connected subscriber without a channel (and no webhook URL): nothing is sent', async () => {
        await t.moduleRef.get(ChannelConnectionsService).create(env.environmentId, {
          channel: 'chat',
          providerId: 'slack',
          integrationIdentifier: 'slack-chat',
          subscriberId: 'sl-nochannel',
          workspace: { id: 'T0001' },
          auth: { accessToken: token },
        });
        const run = await deliver('slack', env, credentials, { subscriberId: 'sl-nochannel', firstName: 'Ann' });

        expect(server.requests).toHaveLength(0);
        expect(run.job.status).toBe('failed');
        expect(run.job.details.at(-1)).toMatchObject({ detail: 'Webhook URL for the chat channel is missing', status: 'Failed', providerId: 'slack' });
      });

      it('retries a 429 ratelimited after Slack’s Retry-After and sends on the second try', async () => {
        server.respond('/slack-api/chat.postMessage', (_request, index) =>
          index === 0 ? slackApi.error('ratelimited', 429, { 'retry-after': '1' }) : slackApi.ok('C0BBB', '1795000000.000200', TEXT),
        );
        const run = await deliver('slack', env, credentials, await connected('sl-fay', 'C0BBB'));

        const requests = server.requestsTo('/slack-api/chat.postMessage');
        expectRetriedToSuccess(run, requests);
        expect(requests[1].receivedAt.getTime() - requests[0].receivedAt.getTime()).toBeGreaterThanOrEqual(950);
        expect(run.message?.provider_message_id).toBe('1795000000.000200');
        expectNoSecrets(run, token);
      });
    });
  });

  describe('discord', () => {
    const hook = (name: string) => `/api/webhooks/1200000000000000001/${name}-DiScOrDwEbHoOkToKeN`;
    let env: TestEnvironment;

    beforeAll(async () => {
      env = await createEnvironment(t.moduleRef, 'discord');
    });

    it('executes the webhook with wait=true (keeping the URL’s own query) and stores the message id', async () => {
      server.respond(hook('ok'), discord.ok('1300000000000000001', `${TEXT}\n\n${CTA_URL}`));
      const run = await deliver('discord', env, {}, subscriber('dc-ann', 'discord', { webhookUrl: `${server.url(hook('ok'))}?thread_id=42` }), {
        username: 'Shop',
        embeds: [{ title: 'Order A-1' }],
      });

      const [request] = server.requestsTo(hook('ok'));
      expect(request.method).toBe('POST');
      expect(request.query).toEqual({ thread_id: '42', wait: 'true' });
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.body).toEqual({ content: `${TEXT}\n\n${CTA_URL}`, username: 'Shop', embeds: [{ title: 'Order A-1' }] });
      expect(server.requests).toHaveLength(1);
      expectSent(run, 'discord', '1300000000000000001', { status: 200, body: expect.objectContaining({ id: '1300000000000000001' }) as unknown });
    });

    it('fails permanently on 404 Unknown Webhook with Discord’s code as errorId', async () => {
      server.respond(hook('gone'), discord.error(404, 10015, 'Unknown Webhook'));
      const run = await deliver('discord', env, {}, subscriber('dc-bob', 'discord', { webhookUrl: server.url(hook('gone')) }));

      expectFailedOnce(run, server.requestsTo(hook('gone')), {
        text: 'Discord responded with 404: Unknown Webhook',
        errorId: '10015',
        response: { status: 404, body: { code: 10015, message: 'Unknown Webhook' } },
      });
      expectNoSecrets(run, 'gone-DiScOrDwEbHoOkToKeN');
    });

    it('retries a 429 after the body’s retry_after and sends on the second try', async () => {
      server.respond(hook('limited'), (_request, index) => (index === 0 ? discord.rateLimited(0.6) : discord.ok('1300000000000000002', TEXT)));
      const run = await deliver('discord', env, {}, subscriber('dc-cid', 'discord', { webhookUrl: server.url(hook('limited')) }));

      const requests = server.requestsTo(hook('limited'));
      expectRetriedToSuccess(run, requests);
      expect(requests[1].receivedAt.getTime() - requests[0].receivedAt.getTime()).toBeGreaterThanOrEqual(550);
      expect(run.message?.provider_message_id).toBe('1300000000000000002');
    });
  });

  describe('msteams', () => {
    const hook = (name: string) => `/webhookb2/tenant@tenant/IncomingWebhook/${name}-TeAmSsEcReT/owner`;
    let env: TestEnvironment;

    beforeAll(async () => {
      env = await createEnvironment(t.moduleRef, 'msteams');
    });

    it('posts an Adaptive Card message with an Open action; Teams answers 1 and gives no id', async () => {
      server.respond(hook('ok'), msteams.ok());
      const run = await deliver('msteams', env, {}, subscriber('mt-ann', 'msteams', { webhookUrl: server.url(hook('ok')) }));

      const [request] = server.requestsTo(hook('ok'));
      expect(request.method).toBe('POST');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.body).toEqual({
        type: 'message',
        attachments: [
          {
            contentType: 'application/vnd.microsoft.card.adaptive',
            contentUrl: null,
            content: {
              $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
              type: 'AdaptiveCard',
              version: '1.2',
              body: [{ type: 'TextBlock', text: TEXT, wrap: true }],
              actions: [{ type: 'Action.OpenUrl', title: 'Open', url: CTA_URL }],
            },
          },
        ],
      });
      expect(server.requests).toHaveLength(1);
      expectSent(run, 'msteams', null, { status: 200, body: 1 });
    });

    it('fails permanently on 400 Bad payload', async () => {
      server.respond(hook('bad'), msteams.error(400, 'Bad payload received by generic incoming webhook.'));
      const run = await deliver('msteams', env, {}, subscriber('mt-bob', 'msteams', { webhookUrl: server.url(hook('bad')) }));

      expectFailedOnce(run, server.requestsTo(hook('bad')), {
        text: 'Microsoft Teams responded with 400: Bad payload received by generic incoming webhook.',
        errorId: 'unexpected_provider_error',
        response: { status: 400, body: 'Bad payload received by generic incoming webhook.' },
      });
      expectNoSecrets(run, 'bad-TeAmSsEcReT');
    });

    it('treats the connector’s 200 “returned HTTP error 429” as transient and sends on the second try', async () => {
      server.respond(hook('throttled'), (_request, index) => (index === 0 ? msteams.wrapped(429) : msteams.ok()));
      const run = await deliver('msteams', env, {}, subscriber('mt-cid', 'msteams', { webhookUrl: server.url(hook('throttled')) }));

      expectRetriedToSuccess(run, server.requestsTo(hook('throttled')));
      const retried = run.job.details.find((d) => !d.isRetry && d.status !== 'Pending' && d.detail !== 'Message sent');
      expect(JSON.stringify(retried?.raw)).toContain('returned HTTP error 429');
    });
  });

  describe('mattermost', () => {
    const hook = (name: string) => `/hooks/${name}mAtTeRmOsTkEy`;
    let env: TestEnvironment;

    beforeAll(async () => {
      env = await createEnvironment(t.moduleRef, 'mattermost');
    });

    it('posts text and the subscriber’s channel; stores the X-Request-Id', async () => {
      server.respond(hook('ok'), mattermost.ok('hoan6o9ws7rp5xj7wu9rmysrte'));
      const run = await deliver('mattermost', env, {}, subscriber('mm-ann', 'mattermost', { webhookUrl: server.url(hook('ok')), channel: 'town-square' }), {
        username: 'shop-bot',
      });

      const [request] = server.requestsTo(hook('ok'));
      expect(request.method).toBe('POST');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.body).toEqual({ text: `${TEXT}\n\n${CTA_URL}`, channel: 'town-square', username: 'shop-bot' });
      expect(server.requests).toHaveLength(1);
      expectSent(run, 'mattermost', 'hoan6o9ws7rp5xj7wu9rmysrte', { status: 200, body: 'ok' });
    });

    it('fails permanently on 400 with Mattermost’s error id as errorId', async () => {
      server.respond(hook('bad'), mattermost.error(400, 'web.incoming_webhook.invalid.app_error', 'Invalid webhook.'));
      const run = await deliver('mattermost', env, {}, subscriber('mm-bob', 'mattermost', { webhookUrl: server.url(hook('bad')) }));

      expectFailedOnce(run, server.requestsTo(hook('bad')), {
        text: 'Mattermost responded with 400: Invalid webhook.',
        errorId: 'web.incoming_webhook.invalid.app_error',
        response: {
          status: 400,
          body: { id: 'web.incoming_webhook.invalid.app_error', message: 'Invalid webhook.', detailed_error: '', request_id: 'req-0001', status_code: 400 },
        },
      });
      expectNoSecrets(run, 'badmAtTeRmOsTkEy');
    });

    it('retries a 503 and sends on the second try', async () => {
      server.respond(hook('down'), (_request, index) => (index === 0 ? { status: 503, body: 'Service Unavailable' } : mattermost.ok('req-second')));
      const run = await deliver('mattermost', env, {}, subscriber('mm-cid', 'mattermost', { webhookUrl: server.url(hook('down')) }));

      expectRetriedToSuccess(run, server.requestsTo(hook('down')));
      expect(run.message?.provider_message_id).toBe('req-second');
    });
  });

  describe('telegram', () => {
    const botToken = '7100000001:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
    const path = `/telegram/bot${botToken}/sendMessage`;
    let env: TestEnvironment;
    let credentials: IntegrationCredentials;

    beforeAll(async () => {
      env = await createEnvironment(t.moduleRef, 'telegram');
      credentials = { apiToken: botToken, baseUrl: server.url('/telegram') };
    });

    it('calls sendMessage with the chat id from the subscriber’s channel and stores message_id', async () => {
      server.respond(path, telegram.ok(7001, 987654321, `${TEXT}\n\n${CTA_URL}`));
      const run = await deliver('telegram', env, credentials, subscriber('tg-ann', 'telegram', { channel: '987654321' }), {
        parse_mode: 'HTML',
        disable_notification: true,
      });

      const [request] = server.requestsTo(path);
      expect(request.method).toBe('POST');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.body).toEqual({ chat_id: '987654321', text: `${TEXT}\n\n${CTA_URL}`, parse_mode: 'HTML', disable_notification: true });
      expect(server.requests).toHaveLength(1);
      expectSent(run, 'telegram', '7001', { status: 200, body: expect.objectContaining({ ok: true, result: expect.objectContaining({ message_id: 7001 }) as unknown }) as unknown });
      expectNoSecrets(run, botToken);
    });

    it('fails permanently on 400 chat not found, without the bot token anywhere', async () => {
      server.respond(path, telegram.error(400, 'Bad Request: chat not found'));
      const run = await deliver('telegram', env, credentials, subscriber('tg-bob', 'telegram', { channel: '111' }));

      expectFailedOnce(run, server.requestsTo(path), {
        text: 'Telegram responded with 400: Bad Request: chat not found',
        errorId: '400',
        response: { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } },
      });
      expectNoSecrets(run, botToken);
    });

    it('retries a 429 after parameters.retry_after and sends on the second try', async () => {
      server.respond(path, (_request, index) =>
        index === 0 ? telegram.error(429, 'Too Many Requests: retry after 1', { retry_after: 1 }) : telegram.ok(7002, 222, TEXT),
      );
      const run = await deliver('telegram', env, credentials, subscriber('tg-cid', 'telegram', { channel: '222' }));

      const requests = server.requestsTo(path);
      expectRetriedToSuccess(run, requests);
      expect(requests[1].receivedAt.getTime() - requests[0].receivedAt.getTime()).toBeGreaterThanOrEqual(950);
      expect(run.message?.provider_message_id).toBe('7002');
      expectNoSecrets(run, botToken);
    });

    it('refuses an integration without the bot token (credentials.apiToken)', async () => {
      const error = await createIntegration(t.moduleRef, env.environmentId, { name: 'Telegram', identifier: 'telegram-no-token', providerId: 'telegram', channel: 'chat', credentials: {} }).then(
        () => undefined,
        (rejection: unknown) => rejection,
      );

      expect(error).toBeInstanceOf(RequestValidationException);
      expect(JSON.stringify((error as RequestValidationException).getResponse())).toContain('credentials for telegram are missing: apiToken');
    });

    it('does not call Telegram for a subscriber without a chat id', async () => {
      const run = await deliver('telegram', env, credentials, { subscriberId: 'tg-none', firstName: 'Ann' });

      expect(server.requests).toHaveLength(0);
      expect(run.job.status).toBe('failed');
      expect(run.job.details.at(-1)).toMatchObject({ detail: 'Webhook URL for the chat channel is missing', status: 'Failed', providerId: 'telegram' });
    });
  });
});
