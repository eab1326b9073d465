import { createHmac } from 'node:crypto';
import { createServer } from 'node:net';
import { Logger } from '@nestjs/common';
import {
  ChatWebhookProvider,
  type DeliveryMessage,
  DeliveryError,
  EmailWebhookProvider,
  GenericSmsProvider,
  PushWebhookProvider,
  verifyWebhookSignature,
  WEBHOOK_RESPONSE_BODY_LIMIT,
  type WebhookDeliveryProvider,
} from '../../lib/providers';
import type { IntegrationCredentials } from '../../lib/integrations/integrations.service';
import { WebhookReceiver } from '../fixtures/webhook-receiver';

/**
 * The generic webhook providers against a real HTTP receiver: request shapes, headers, signatures,
 * and how failures become DeliveryErrors. No database involved.
 */

const SECRET = 'whsec-test-secret';

function message(overrides: Partial<DeliveryMessage> = {}, to: Partial<DeliveryMessage['to']> = {}): DeliveryMessage {
  return {
    channel: 'email',
    jobId: '65f000000000000000000001',
    transactionId: 'txn-1',
    environmentId: '65f0000000000000000000e1',
    workflowIdentifier: 'order-shipped',
    to: { subscriberId: 'sub-1', email: 'ada@example.com', phone: '+15550001111', deviceTokens: ['tok-a', 'tok-b'], ...to },
    subject: 'Your order shipped',
    title: 'Shipped',
    content: '<p>Order 42 is on its way</p>',
    payload: { orderId: 42 },
    overrides: { tag: 'x' },
    timeoutMs: 10_000,
    attempt: 0,
    ...overrides,
  };
}

function expectedEnvelope(msg: DeliveryMessage): Record<string, unknown> {
  return {
    jobId: msg.jobId,
    transactionId: msg.transactionId,
    environmentId: msg.environmentId,
    workflowIdentifier: msg.workflowIdentifier,
    subscriberId: msg.to.subscriberId,
  };
}

function hmac(raw: Buffer): string {
  return createHmac('sha256', SECRET).update(raw).digest('hex');
}

/** Rejects with the DeliveryError a send throws (fails the test when it resolves or throws something else). */
async function deliveryError(promise: Promise<unknown>): Promise<DeliveryError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}

/** Providers with a short timeout, as a host's subclass would set it. */
class QuickEmailWebhookProvider extends EmailWebhookProvider {
  protected override timeoutMs = 150;
}

describe('generic webhook providers', () => {
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    // The providers log each outcome at debug level; keep the run's output to real problems.
    Logger.overrideLogger(['error', 'warn']);
    receiver = await WebhookReceiver.start();
  });
  afterAll(() => receiver.close());
  beforeEach(() => receiver.reset());

  describe.each<[string, () => WebhookDeliveryProvider, DeliveryMessage['channel']]>([
    ['email-webhook', () => new EmailWebhookProvider(), 'email'],
    ['generic-sms', () => new GenericSmsProvider(), 'sms'],
    ['chat-webhook', () => new ChatWebhookProvider(), 'chat'],
    ['push-webhook', () => new PushWebhookProvider(), 'push'],
  ])('%s', (providerId, make, channel) => {
    const provider = make();

    it('declares its provider id and channel', () => {
      expect(provider.providerId).toBe(providerId);
      expect(provider.channel).toBe(channel);
    });

    it('POSTs JSON with the job id as idempotency key and no signature without a secretKey', async () => {
      receiver.respond('/hook', { status: 202, body: { id: 'vendor-7', queued: true } });
      const msg = message({ channel });

      const result = await provider.send(msg, { webhookUrl: receiver.url('/hook') });

      const [request] = await receiver.waitFor(1);
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/hook');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['idempotency-key']).toBe(msg.jobId);
      expect(request.headers['x-signature']).toBeUndefined();
      expect(request.body).toMatchObject(expectedEnvelope(msg));
      expect(result).toEqual({ id: 'vendor-7', raw: { status: 202, body: { id: 'vendor-7', queued: true } } });
    });

    it('signs the exact raw body with HMAC-SHA256 of the secretKey, and never sends the credentials', async () => {
      await provider.send(message({ channel }), { webhookUrl: receiver.url('/signed'), secretKey: SECRET, apiKey: 'api-key-value' });

      const [request] = await receiver.waitFor(1);
      expect(request.headers['x-signature']).toBe(hmac(request.rawBody));
      expect(verifyWebhookSignature(request.rawBody, request.headers['x-signature'] as string, SECRET)).toBe(true);
      expect(verifyWebhookSignature(request.rawBody, request.headers['x-signature'] as string, 'another-secret')).toBe(false);
      expect(request.rawBody.toString()).not.toContain(SECRET);
      expect(request.rawBody.toString()).not.toContain('api-key-value');
    });

    it('turns a non-2xx answer into a DeliveryError with the status and the body', async () => {
      receiver.respond('/down', { status: 503, body: 'maintenance' });

      const error = await deliveryError(provider.send(message({ channel }), { webhookUrl: receiver.url('/down') }));

      expect(error.message).toBe('Webhook responded with 503');
      expect(error.raw).toEqual({ status: 503, body: 'maintenance' });
    });

    it('refuses to send without a webhook URL, before any request', async () => {
      const error = await deliveryError(provider.send(message({ channel }, { webhookUrl: undefined }), {}));

      expect(error.message).toMatch(/webhookUrl/);
      expect(receiver.requests).toHaveLength(0);
    });
  });

  describe('body shapes', () => {
    it('email: recipient, subject, content, sender, payload and overrides', async () => {
      const msg = message({ ctaUrl: 'https://shop.example/orders/42' });
      await new EmailWebhookProvider().send(msg, {
        webhookUrl: receiver.url('/email'),
        from: 'shop@example.com',
        senderName: 'Shop',
        secretKey: SECRET,
      });

      const [request] = await receiver.waitFor(1);
      expect(request.body).toEqual({
        ...expectedEnvelope(msg),
        to: 'ada@example.com',
        subject: 'Your order shipped',
        content: '<p>Order 42 is on its way</p>',
        from: 'shop@example.com',
        senderName: 'Shop',
        ctaUrl: 'https://shop.example/orders/42',
        payload: { orderId: 42 },
        overrides: { tag: 'x' },
      });
    });

    it('email: omits the optional fields it has no value for', async () => {
      const msg = message({ subject: undefined });
      await new EmailWebhookProvider().send(msg, { webhookUrl: receiver.url('/email'), from: '' });

      const [request] = await receiver.waitFor(1);
      expect(request.body).toEqual({
        ...expectedEnvelope(msg),
        to: 'ada@example.com',
        subject: '',
        content: msg.content,
        payload: msg.payload,
        overrides: msg.overrides,
      });
    });

    it('sms: phone number, text and sender', async () => {
      const msg = message({ channel: 'sms', content: 'Order 42 shipped' });
      await new GenericSmsProvider().send(msg, { webhookUrl: receiver.url('/sms'), from: 'SHOP' });

      const [request] = await receiver.waitFor(1);
      expect(request.body).toEqual({
        ...expectedEnvelope(msg),
        to: '+15550001111',
        content: 'Order 42 shipped',
        from: 'SHOP',
        payload: msg.payload,
        overrides: msg.overrides,
      });
    });

    it("chat: posts to the subscriber's own webhook URL when it has one, with its channel", async () => {
      const msg = message({ channel: 'chat', content: 'Deploy done' }, { webhookUrl: receiver.url('/subscriber-room'), channel: '#ops' });
      await new ChatWebhookProvider().send(msg, { webhookUrl: receiver.url('/integration-room') });

      const [request] = await receiver.waitFor(1);
      expect(request.path).toBe('/subscriber-room');
      expect(request.body).toEqual({
        ...expectedEnvelope(msg),
        content: 'Deploy done',
        channel: '#ops',
        payload: msg.payload,
        overrides: msg.overrides,
      });
    });

    it("chat: falls back to the integration's webhook URL", async () => {
      const msg = message({ channel: 'chat' }, { webhookUrl: undefined });
      await new ChatWebhookProvider().send(msg, { webhookUrl: receiver.url('/integration-room') });

      const [request] = await receiver.waitFor(1);
      expect(request.path).toBe('/integration-room');
      expect(request.body).not.toHaveProperty('channel');
    });

    it('push: device tokens as target, title, content, payload and overrides', async () => {
      const msg = message({ channel: 'push', content: 'On its way' });
      await new PushWebhookProvider().send(msg, { webhookUrl: receiver.url('/push') });

      const [request] = await receiver.waitFor(1);
      expect(request.body).toEqual({
        ...expectedEnvelope(msg),
        target: ['tok-a', 'tok-b'],
        title: 'Shipped',
        content: 'On its way',
        payload: msg.payload,
        overrides: msg.overrides,
      });
    });
  });

  describe('missing recipient details', () => {
    it.each<[string, WebhookDeliveryProvider, Partial<DeliveryMessage['to']>, RegExp]>([
      ['email without an address', new EmailWebhookProvider(), { email: null }, /no email address/],
      ['sms without a phone', new GenericSmsProvider(), { phone: '  ' }, /no phone number/],
      ['push without device tokens', new PushWebhookProvider(), { deviceTokens: [] }, /no push-webhook device tokens/],
    ])('%s is a DeliveryError, and nothing is sent', async (_case, provider, to, expected) => {
      const error = await deliveryError(provider.send(message({}, to), { webhookUrl: receiver.url('/never') }));

      expect(error.message).toMatch(expected);
      expect(receiver.requests).toHaveLength(0);
    });

    it('chat without any webhook URL names both places it looked', async () => {
      const error = await deliveryError(new ChatWebhookProvider().send(message({ channel: 'chat' }, { webhookUrl: '' }), {}));

      expect(error.message).toBe('The subscriber has no chat-webhook webhookUrl and the integration has no credentials.webhookUrl');
    });
  });

  describe('answers and failures', () => {
    const credentials = (path: string): IntegrationCredentials => ({ webhookUrl: receiver.url(path) });

    it('keeps a text answer as text, with no id', async () => {
      receiver.respond('/text', { status: 200, body: 'accepted' });

      await expect(new GenericSmsProvider().send(message(), credentials('/text'))).resolves.toEqual({
        id: undefined,
        raw: { status: 200, body: 'accepted' },
      });
    });

    it('reads a numeric JSON id as a string', async () => {
      receiver.respond('/numeric', { body: { id: 1234 } });

      await expect(new GenericSmsProvider().send(message(), credentials('/numeric'))).resolves.toMatchObject({ id: '1234' });
    });

    it('truncates a large error body to the limit', async () => {
      receiver.respond('/big-error', { status: 500, body: 'x'.repeat(10_000) });

      const error = await deliveryError(new EmailWebhookProvider().send(message(), credentials('/big-error')));

      const raw = error.raw as { status: number; body: string };
      expect(raw.status).toBe(500);
      expect(raw.body).toHaveLength(WEBHOOK_RESPONSE_BODY_LIMIT + 1);
      expect(raw.body.endsWith('…')).toBe(true);
    });

    it('stores a large successful JSON answer as truncated text but still reads its id', async () => {
      receiver.respond('/big-ok', { body: { id: 'big-1', filler: 'y'.repeat(5000) } });

      const result = await new EmailWebhookProvider().send(message(), credentials('/big-ok'));

      expect(result.id).toBe('big-1');
      expect((result.raw as { body: string }).body).toHaveLength(WEBHOOK_RESPONSE_BODY_LIMIT + 1);
    });

    it('does not follow redirects', async () => {
      receiver.respond('/moved', { status: 302, headers: { location: receiver.url('/elsewhere') }, body: '' });

      const error = await deliveryError(new EmailWebhookProvider().send(message(), credentials('/moved')));

      expect(error.message).toBe('Webhook responded with 302');
      expect(receiver.requestsTo('/elsewhere')).toHaveLength(0);
    });

    it('gives up after its timeout', async () => {
      receiver.respond('/slow', { delayMs: 2000 });

      const startedAt = Date.now();
      const error = await deliveryError(new QuickEmailWebhookProvider().send(message(), credentials('/slow')));

      expect(Date.now() - startedAt).toBeLessThan(1500);
      expect(error.message).toBe('Webhook did not answer within 150 ms');
      expect((error.raw as { error: string }).error).toMatch(/TimeoutError/);
      expect(receiver.requestsTo('/slow')).toHaveLength(1);
    });

    it('turns a connection failure into a DeliveryError', async () => {
      const closedPort = await freePort();

      const error = await deliveryError(new PushWebhookProvider().send(message(), { webhookUrl: `http://127.0.0.1:${closedPort}/push` }));

      expect(error.message).toMatch(/^Webhook request failed: /);
      expect((error.raw as { error: string }).error).toMatch(/ECONNREFUSED/);
    });

    it.each([
      ['not a URL', 'not a url/with-secret-token'],
      ['not http(s)', 'ftp://example.com/with-secret-token'],
    ])('refuses a webhook URL that is %s without echoing it', async (_case, webhookUrl) => {
      const error = await deliveryError(new GenericSmsProvider().send(message(), { webhookUrl }));

      expect(error.message).toMatch(/webhook URL/);
      expect(`${error.message} ${JSON.stringify(error.raw ?? null)}`).not.toContain('with-secret-token');
    });

    it('sends credentials embedded in the URL as Basic auth', async () => {
      const url = receiver.url('/basic').replace('http://', 'http://hook-user:p%40ss@');

      await new GenericSmsProvider().send(message(), { webhookUrl: url });

      const [request] = await receiver.waitFor(1);
      expect(request.headers.authorization).toBe(`Basic ${Buffer.from('hook-user:p@ss').toString('base64')}`);
    });

    it('sends a redelivered job with the same idempotency key', async () => {
      const msg = message();
      await new EmailWebhookProvider().send(msg, credentials('/again'));
      await new EmailWebhookProvider().send(msg, credentials('/again'));

      const requests = await receiver.waitFor(2);
      expect(requests.map((request) => request.headers['idempotency-key'])).toEqual([msg.jobId, msg.jobId]);
    });
  });
});

/** A port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
