import { generateKeyPairSync } from 'node:crypto';
import type { IntegrationCredentials } from '../../lib';
import { useTestApp } from '../fixtures/app';
import { type DeliveredRun, deliverThroughVendor, retryLines, VENDOR_TEST_OPTIONS } from '../fixtures/vendor-delivery';
import { ApnsTestServer, testApnsKey } from '../fixtures/vendors/push-apns';
import { expo, fcm, googleOAuth, oneSignal, testServiceAccount, verifyTokenRequest } from '../fixtures/vendors/push-vendors';
import { WebhookReceiver } from '../fixtures/webhook-receiver';

/**
 * The push vendors end to end: trigger → worker → provider → a local server answering as FCM (with
 * Google's OAuth token endpoint), APNs (cleartext HTTP/2), Expo and OneSignal document it. For each:
 * the exact request, success (the vendor's id on the message, its answer per device token in `Message
 * sent`), one invalid token among two (recorded per token, the send still succeeds), a permanent
 * error (no retry, the vendor's answer in the failed detail, no secret anywhere) and a transient error
 * retried to success.
 */

const TEMPLATE = { title: 'Hello {{ subscriber.firstName }}', content: 'Order {{ payload.orderId }} shipped' };
const PAYLOAD = { orderId: 'A-1', count: 2, meta: { gift: true } };
const TITLE = 'Hello Ann';
const BODY = 'Order A-1 shipped';
/** A version-3 (name-based) UUID: the per-token apns-id / idempotency_key derived from the job id. */
const UUID_V3 = /^[0-9a-f]{8}-[0-9a-f]{4}-3[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('push providers against local vendor servers', () => {
  const t = useTestApp('fastify', { options: VENDOR_TEST_OPTIONS });
  let server: WebhookReceiver;

  beforeAll(async () => {
    server = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());

  /** A subscriber whose push channel for `providerId` holds `tokens`. */
  const subscriber = (subscriberId: string, providerId: string, tokens: string[]) => ({
    subscriberId,
    firstName: 'Ann',
    channels: [{ providerId, credentials: { deviceTokens: tokens } }],
  });

  /** One delivery of the shared template through `providerId` in a new environment (unless `env` is given). */
  const deliver = (
    providerId: string,
    credentials: IntegrationCredentials,
    to: Record<string, unknown>,
    options: { overrides?: Record<string, unknown>; env?: DeliveredRun['env'] } = {},
  ) =>
    deliverThroughVendor(t, {
      providerId,
      channel: 'push',
      credentials,
      to,
      template: TEMPLATE,
      payload: PAYLOAD,
      ...(options.env && { env: options.env }),
      ...(options.overrides && { overrides: { providers: { [providerId]: options.overrides } } }),
    });

  function messageSentRaw(run: DeliveredRun): unknown {
    return run.job.details.find((d) => d.detail === 'Message sent')?.raw;
  }

  function expectSent(run: DeliveredRun, providerId: string, id: string, tokens: string[]): void {
    expect(run.job.status).toBe('completed');
    expect(run.message).toMatchObject({ status: 'sent', provider_id: providerId, provider_message_id: id, error_text: null, device_tokens: tokens, title: TITLE, content: BODY });
    expect(run.job.details.find((d) => d.detail === 'Message sent')).toMatchObject({ status: 'Success', providerId });
  }

  /** Exactly one request, the job failed with the vendor's answer in the failed detail, no retry. */
  function expectFailedOnce(run: DeliveredRun, requestCount: number, failure: { text: string; errorId: string | null; response: unknown }): void {
    expect(requestCount).toBe(1);
    expect(run.job.status).toBe('failed');
    expect(run.message).toMatchObject({ status: 'error', error_text: failure.text, error_id: failure.errorId, provider_message_id: null });
    expect(run.job.details.find((d) => d.detail === 'Unexpected provider error')).toMatchObject({
      status: 'Failed',
      raw: expect.objectContaining({
        response: { sent: 0, failed: 1, tokens: [expect.objectContaining({ status: 'failed', error: failure.text, raw: failure.response })] },
      }) as unknown,
    });
    expect(retryLines(run.job)).toEqual([]);
  }

  function expectRetriedToSuccess(run: DeliveredRun, requestCount: number): void {
    expect(requestCount).toBe(2);
    expect(run.job.status).toBe('completed');
    expect(run.message?.status).toBe('sent');
    expect(retryLines(run.job).map((d) => d.detail)).toContain('Message sent');
    expect(run.job.details.filter((d) => !d.isRetry).map((d) => d.detail)).not.toContain('Message sent');
  }

  /** Neither the execution log nor the job error nor the message may carry these. */
  function expectNoSecrets(run: DeliveredRun, ...secrets: string[]): void {
    const stored = JSON.stringify({ details: run.job.details, error: run.job.error, message: run.message });
    for (const secret of secrets) expect(stored).not.toContain(secret);
  }

  /** The per-token outcome of the invalid token in a partially successful send. */
  function expectInvalidTokenRecorded(run: DeliveredRun, token: string, code: string, error: string): void {
    expect(run.job.status).toBe('completed');
    expect(run.message?.status).toBe('sent');
    const raw = messageSentRaw(run) as { sent: number; failed: number; tokens: Array<Record<string, unknown>> };
    expect(raw).toMatchObject({ sent: 1, failed: 1 });
    expect(raw.tokens.find((outcome) => outcome.token === token)).toMatchObject({ token, status: 'failed', code, error, invalidToken: true });
    expect(raw.tokens.filter((outcome) => outcome.status === 'sent')).toHaveLength(1);
  }

  describe('fcm (HTTP v1 with a service-account OAuth token)', () => {
    /** Credentials of a fresh service account whose token_uri is `/oauth/<name>` on the receiver. */
    const fcmSetup = (name: string) => {
      const account = testServiceAccount(`shop-${name}`, server.url(`/oauth/${name}`));
      return {
        account,
        tokenPath: `/oauth/${name}`,
        sendPath: `/fcm/v1/projects/shop-${name}/messages:send`,
        credentials: { serviceAccount: account.json, baseUrl: server.url('/fcm') } satisfies IntegrationCredentials,
      };
    };

    it('signs the assertion, fetches the access token once for several sends, and posts one message per token', async () => {
      const { account, tokenPath, sendPath, credentials } = fcmSetup('ok');
      server.respond(tokenPath, googleOAuth.ok('ya29.test-access-token-ok'));
      server.respond(sendPath, (request) => fcm.ok('shop-ok', `m-${(request.body as { message: { token: string } }).message.token}`));

      const run = await deliver('fcm', credentials, subscriber('fcm-ann', 'fcm', ['t1', 't2']));

      const [tokenRequest] = server.requestsTo(tokenPath);
      expect(tokenRequest.method).toBe('POST');
      expect(tokenRequest.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect([...new URLSearchParams(tokenRequest.rawBody.toString()).keys()]).toEqual(['grant_type', 'assertion']);
      const { header, claims } = verifyTokenRequest(tokenRequest, account);
      expect(header).toEqual({ alg: 'RS256', typ: 'JWT', kid: account.privateKeyId });
      expect(claims).toEqual({
        iss: account.clientEmail,
        scope: 'https://www.googleapis.com/auth/firebase.messaging',
        aud: account.tokenUri,
        iat: expect.any(Number) as unknown,
        exp: (claims.iat ?? 0) + 3600,
      });
      expect(Math.abs((claims.iat ?? 0) - Date.now() / 1000)).toBeLessThan(60);

      const sends = server.requestsTo(sendPath).sort((a, b) => a.rawBody.toString().localeCompare(b.rawBody.toString()));
      expect(sends).toHaveLength(2);
      for (const [index, request] of sends.entries()) {
        expect(request.method).toBe('POST');
        expect(request.headers.authorization).toBe('Bearer ya29.test-access-token-ok');
        expect(request.headers['content-type']).toBe('application/json');
        expect(request.body).toEqual({
          message: {
            token: `t${index + 1}`,
            notification: { title: TITLE, body: BODY },
            // FCM takes strings only: non-string payload values are JSON-encoded.
            data: { orderId: 'A-1', count: '2', meta: '{"gift":true}' },
          },
        });
      }
      expectSent(run, 'fcm', 'projects/shop-ok/messages/m-t1', ['t1', 't2']);
      expect(messageSentRaw(run)).toEqual({
        sent: 2,
        failed: 0,
        tokens: [
          { token: 't1', status: 'sent', id: 'projects/shop-ok/messages/m-t1', raw: { status: 200, body: { name: 'projects/shop-ok/messages/m-t1' } } },
          { token: 't2', status: 'sent', id: 'projects/shop-ok/messages/m-t2', raw: { status: 200, body: { name: 'projects/shop-ok/messages/m-t2' } } },
        ],
      });
      expectNoSecrets(run, 'ya29.test-access-token-ok', account.privateKey.split('\n')[1]);

      // A second notification reuses the cached token and maps the trigger's overrides.
      const again = await deliver('fcm', credentials, subscriber('fcm-ann', 'fcm', ['t3']), {
        env: run.env,
        overrides: { image: 'https://cdn.example.com/a.png', data: { deepLink: '/orders/A-1' }, android: { priority: 'high' }, fcmOptions: { analytics_label: 'orders' } },
      });
      expect(server.requestsTo(tokenPath)).toHaveLength(1);
      expect(server.requestsTo(sendPath).at(-1)?.body).toEqual({
        message: {
          token: 't3',
          notification: { title: TITLE, body: BODY, image: 'https://cdn.example.com/a.png' },
          data: { orderId: 'A-1', count: '2', meta: '{"gift":true}', deepLink: '/orders/A-1' },
          android: { priority: 'high' },
          fcm_options: { analytics_label: 'orders' },
        },
      });
      expectSent(again, 'fcm', 'projects/shop-ok/messages/m-t3', ['t3']);
    });

    it('records an unregistered token among two and still sends to the other', async () => {
      const { tokenPath, sendPath, credentials } = fcmSetup('partial');
      server.respond(tokenPath, googleOAuth.ok('ya29.test-access-token-partial'));
      server.respond(sendPath, (request) => ((request.body as { message: { token: string } }).message.token === 't-gone' ? fcm.unregistered() : fcm.ok('shop-partial', 'm-1')));

      const run = await deliver('fcm', credentials, subscriber('fcm-bob', 'fcm', ['t-ok', 't-gone']));

      expect(server.requestsTo(sendPath)).toHaveLength(2);
      expectSent(run, 'fcm', 'projects/shop-partial/messages/m-1', ['t-ok', 't-gone']);
      expectInvalidTokenRecorded(run, 't-gone', 'UNREGISTERED', 'FCM responded with 404: UNREGISTERED: Requested entity was not found.');
    });

    it('fails permanently on a 403 SENDER_ID_MISMATCH', async () => {
      const { account, tokenPath, sendPath, credentials } = fcmSetup('denied');
      server.respond(tokenPath, googleOAuth.ok('ya29.test-access-token-denied'));
      const answer = fcm.error(403, 'PERMISSION_DENIED', 'SenderId mismatch', 'SENDER_ID_MISMATCH');
      server.respond(sendPath, answer);

      const run = await deliver('fcm', credentials, subscriber('fcm-cy', 'fcm', ['t1']));

      expectFailedOnce(run, server.requestsTo(sendPath).length, {
        text: 'FCM responded with 403: SENDER_ID_MISMATCH: SenderId mismatch',
        errorId: 'SENDER_ID_MISMATCH',
        response: { status: 403, body: answer.body },
      });
      expectNoSecrets(run, 'ya29.test-access-token-denied', account.privateKey.split('\n')[1]);
    });

    it('fails permanently when Google refuses the assertion (invalid_grant), without calling FCM', async () => {
      const { tokenPath, sendPath, credentials } = fcmSetup('badgrant');
      const answer = googleOAuth.error(400, 'invalid_grant', 'Invalid JWT Signature.');
      server.respond(tokenPath, answer);

      const run = await deliver('fcm', credentials, subscriber('fcm-dan', 'fcm', ['t1']));

      expectFailedOnce(run, server.requestsTo(tokenPath).length, {
        text: 'FCM OAuth responded with 400: invalid_grant: Invalid JWT Signature.',
        errorId: 'invalid_grant',
        response: { status: 400, body: answer.body },
      });
      expect(server.requestsTo(sendPath)).toEqual([]);
    });

    it('retries a 503 UNAVAILABLE with the cached token and sends on the second try', async () => {
      const { tokenPath, sendPath, credentials } = fcmSetup('flaky');
      server.respond(tokenPath, googleOAuth.ok('ya29.test-access-token-flaky'));
      server.respond(sendPath, (_request, index) => (index === 0 ? fcm.unavailable() : fcm.ok('shop-flaky', 'm-2')));

      const run = await deliver('fcm', credentials, subscriber('fcm-eve', 'fcm', ['t1']));

      const sends = server.requestsTo(sendPath);
      expectRetriedToSuccess(run, sends.length);
      expect(sends[1].rawBody.equals(sends[0].rawBody)).toBe(true);
      expect(server.requestsTo(tokenPath)).toHaveLength(1);
      expect(run.message?.provider_message_id).toBe('projects/shop-flaky/messages/m-2');
    });

    it('drops an access token FCM refuses (401) and sends again at once with a new one', async () => {
      const { tokenPath, sendPath, credentials } = fcmSetup('revoked');
      server.respond(tokenPath, (_request, index) => googleOAuth.ok(`ya29.test-access-token-revoked-${index + 1}`));
      server.respond(sendPath, (request) => (request.headers.authorization === 'Bearer ya29.test-access-token-revoked-1' ? fcm.unauthenticated() : fcm.ok('shop-revoked', 'm-3')));

      const run = await deliver('fcm', credentials, subscriber('fcm-fay', 'fcm', ['t1']));

      expect(server.requestsTo(tokenPath)).toHaveLength(2);
      expect(server.requestsTo(sendPath).map((request) => request.headers.authorization)).toEqual([
        'Bearer ya29.test-access-token-revoked-1',
        'Bearer ya29.test-access-token-revoked-2',
      ]);
      expectSent(run, 'fcm', 'projects/shop-revoked/messages/m-3', ['t1']);
      expect(retryLines(run.job)).toEqual([]);
    });
  });

  describe('apns (HTTP/2 with an ES256 provider token)', () => {
    const keyId = 'KEY1234567';
    const teamId = 'TEAM123456';
    const key = testApnsKey();
    let apns: ApnsTestServer;
    let credentials: IntegrationCredentials;

    beforeAll(async () => {
      apns = await ApnsTestServer.start({ publicKey: key.publicKey, keyId, teamId });
      credentials = { secretKey: key.privateKey, apiKey: keyId, projectName: teamId, applicationId: 'com.example.shop', baseUrl: apns.url };
    });
    afterAll(async () => {
      await apns.close();
    });
    beforeEach(() => apns.reset());

    it('posts /3/device/<token> with a verified provider token and the APNs headers, on one reused HTTP/2 session', async () => {
      const run = await deliver('apns', credentials, subscriber('apns-ann', 'apns', ['aa11', 'bb22']));

      const requests = [...apns.requests].sort((a, b) => a.deviceToken.localeCompare(b.deviceToken));
      expect(requests.map((request) => [request.method, request.path])).toEqual([
        ['POST', '/3/device/aa11'],
        ['POST', '/3/device/bb22'],
      ]);
      for (const request of requests) {
        expect(request.jwt?.header).toEqual({ alg: 'ES256', typ: 'JWT', kid: keyId });
        expect(request.jwt?.claims).toEqual({ iss: teamId, iat: expect.any(Number) as unknown });
        expect(request.headers).toMatchObject({
          'apns-topic': 'com.example.shop',
          'apns-push-type': 'alert',
          'apns-priority': '10',
          'content-type': 'application/json',
        });
        expect(request.headers['apns-id']).toMatch(UUID_V3);
        expect(request.body).toEqual({ ...PAYLOAD, aps: { alert: { title: TITLE, body: BODY } } });
      }
      expect(requests[0].headers['apns-id']).not.toBe(requests[1].headers['apns-id']);
      // One provider token for both, one connection for both.
      expect(requests[0].headers.authorization).toBe(requests[1].headers.authorization);
      expect(new Set(requests.map((request) => request.session)).size).toBe(1);

      const [first, second] = requests.map((request) => String(request.headers['apns-id']));
      expectSent(run, 'apns', first, ['aa11', 'bb22']);
      expect(messageSentRaw(run)).toEqual({
        sent: 2,
        failed: 0,
        tokens: [
          { token: 'aa11', status: 'sent', id: first, raw: { status: 200, apnsId: first } },
          { token: 'bb22', status: 'sent', id: second, raw: { status: 200, apnsId: second } },
        ],
      });

      // The next notification rides the same session and token, with the trigger's overrides.
      const again = await deliver('apns', credentials, subscriber('apns-ann', 'apns', ['cc33']), {
        env: run.env,
        overrides: { badge: 3, sound: 'ping.caf', threadId: 'orders', collapseId: 'order-A-1', priority: 5, payload: { deepLink: '/orders/A-1' } },
      });
      expect(again.job.status).toBe('completed');
      const last = apns.requests.at(-1)!;
      expect(last.session).toBe(requests[0].session);
      expect(last.headers.authorization).toBe(requests[0].headers.authorization);
      expect(last.headers).toMatchObject({ 'apns-priority': '5', 'apns-collapse-id': 'order-A-1' });
      expect(last.body).toEqual({ ...PAYLOAD, deepLink: '/orders/A-1', aps: { alert: { title: TITLE, body: BODY }, badge: 3, sound: 'ping.caf', 'thread-id': 'orders' } });
    });

    it('records an unregistered token (410) among two and still sends to the other', async () => {
      apns.respond((request) => (request.deviceToken === 'dead' ? { status: 410, reason: 'Unregistered' } : {}));

      const run = await deliver('apns', credentials, subscriber('apns-bob', 'apns', ['live', 'dead']));

      expect(apns.requests).toHaveLength(2);
      expect(run.job.status).toBe('completed');
      expectInvalidTokenRecorded(run, 'dead', 'Unregistered', 'APNs responded with 410: Unregistered');
    });

    it('fails permanently when APNs refuses the provider token (403 InvalidProviderToken: a key that is not the registered one)', async () => {
      const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1', privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
      const run = await deliver('apns', { ...credentials, secretKey: other.privateKey }, subscriber('apns-cy', 'apns', ['aa11']));

      expectFailedOnce(run, apns.requests.length, {
        text: 'APNs responded with 403: InvalidProviderToken',
        errorId: 'InvalidProviderToken',
        response: { status: 403, body: { reason: 'InvalidProviderToken' } },
      });
      expectNoSecrets(run, other.privateKey.split('\n')[1], String(apns.requests[0].headers.authorization).slice('bearer '.length));
    });

    it('retries a 503 and sends on the second try with the same apns-id', async () => {
      apns.respond((_request, index) => (index === 0 ? { status: 503, reason: 'ServiceUnavailable' } : {}));

      const run = await deliver('apns', credentials, subscriber('apns-dan', 'apns', ['aa11']));

      expectRetriedToSuccess(run, apns.requests.length);
      expect(apns.requests[1].headers['apns-id']).toBe(apns.requests[0].headers['apns-id']);
      expect(run.message?.provider_message_id).toBe(apns.requests[1].headers['apns-id']);
    });

    it('signs a new provider token when APNs says it expired (403 ExpiredProviderToken) and sends again at once', async () => {
      apns.respond((_request, index) => (index === 0 ? { status: 403, reason: 'ExpiredProviderToken' } : {}));

      const run = await deliver('apns', credentials, subscriber('apns-eve', 'apns', ['aa11']));

      expect(apns.requests).toHaveLength(2);
      expect(apns.requests[1].headers.authorization).not.toBe(apns.requests[0].headers.authorization);
      expect(run.job.status).toBe('completed');
      expect(retryLines(run.job)).toEqual([]);
    });
  });

  describe('expo', () => {
    const accessToken = 'expo-access-token-0123456789SECRET';
    const sendPath = '/expo/--/api/v2/push/send';
    const credentials = (withToken = true): IntegrationCredentials => ({ ...(withToken && { apiKey: accessToken }), baseUrl: server.url('/expo') });

    it('posts one message per token with the access token and maps the ticket id', async () => {
      server.respond(sendPath, (request) => expo.ok(`ticket-${(request.body as Array<{ to: string }>)[0].to.slice(-4, -1)}`));

      const run = await deliver('expo', credentials(), subscriber('expo-ann', 'expo', ['ExponentPushToken[aaa]', 'ExponentPushToken[bbb]']), {
        overrides: { sound: 'default', badge: 3, channelId: 'orders' },
      });

      const requests = server.requestsTo(sendPath).sort((a, b) => a.rawBody.toString().localeCompare(b.rawBody.toString()));
      expect(requests).toHaveLength(2);
      for (const [index, request] of requests.entries()) {
        expect(request.method).toBe('POST');
        expect(request.headers.authorization).toBe(`Bearer ${accessToken}`);
        expect(request.headers['content-type']).toBe('application/json');
        expect(request.headers.accept).toBe('application/json');
        expect(request.body).toEqual([
          { to: `ExponentPushToken[${index === 0 ? 'aaa' : 'bbb'}]`, title: TITLE, body: BODY, data: PAYLOAD, sound: 'default', badge: 3, channelId: 'orders' },
        ]);
      }
      expectSent(run, 'expo', 'ticket-aaa', ['ExponentPushToken[aaa]', 'ExponentPushToken[bbb]']);
      expect((messageSentRaw(run) as { tokens: unknown[] }).tokens[0]).toEqual({
        token: 'ExponentPushToken[aaa]',
        status: 'sent',
        id: 'ticket-aaa',
        raw: { status: 200, body: { data: [{ status: 'ok', id: 'ticket-aaa' }] } },
      });
      expectNoSecrets(run, accessToken);
    });

    it('records a DeviceNotRegistered ticket among two and still sends to the other', async () => {
      server.respond(sendPath, (request) =>
        (request.body as Array<{ to: string }>)[0].to === 'ExponentPushToken[gone]'
          ? expo.ticketError('DeviceNotRegistered', '"ExponentPushToken[gone]" is not a registered push notification recipient')
          : expo.ok('ticket-1'),
      );

      const run = await deliver('expo', credentials(), subscriber('expo-bob', 'expo', ['ExponentPushToken[live]', 'ExponentPushToken[gone]']));

      expectInvalidTokenRecorded(
        run,
        'ExponentPushToken[gone]',
        'DeviceNotRegistered',
        'Expo refused the push: "ExponentPushToken[gone]" is not a registered push notification recipient',
      );
      expect(run.message?.provider_message_id).toBe('ticket-1');
    });

    it('fails permanently on a request error (400 PUSH_TOO_MANY_EXPERIENCE_IDS)', async () => {
      const answer = expo.requestError(400, 'PUSH_TOO_MANY_EXPERIENCE_IDS', 'All push notification messages in the same request must be for the same project.');
      server.respond(sendPath, answer);

      const run = await deliver('expo', credentials(), subscriber('expo-cy', 'expo', ['ExponentPushToken[ccc]']));

      expectFailedOnce(run, server.requestsTo(sendPath).length, {
        text: 'Expo responded with 400: All push notification messages in the same request must be for the same project.',
        errorId: 'PUSH_TOO_MANY_EXPERIENCE_IDS',
        response: { status: 400, body: answer.body },
      });
      expectNoSecrets(run, accessToken);
    });

    it('retries a 429 and sends on the second try (no access token: no authorization header)', async () => {
      server.respond(sendPath, (_request, index) => (index === 0 ? expo.requestError(429, 'TOO_MANY_REQUESTS', 'Rate limit exceeded') : expo.ok('ticket-2')));

      const run = await deliver('expo', credentials(false), subscriber('expo-dan', 'expo', ['ExponentPushToken[ddd]']));

      const requests = server.requestsTo(sendPath);
      expectRetriedToSuccess(run, requests.length);
      expect(requests[0].headers.authorization).toBeUndefined();
      expect(requests[1].rawBody.equals(requests[0].rawBody)).toBe(true);
      expect(run.message?.provider_message_id).toBe('ticket-2');
    });
  });

  describe('one-signal', () => {
    const apiKey = 'os_v2_app_0123456789abcdefSECRETKEY';
    const appId = '5eb5a37e-b458-11e3-ac11-000c2940e62c';
    const sendPath = '/onesignal/notifications';
    const credentials = (): IntegrationCredentials => ({ applicationId: appId, apiKey, baseUrl: server.url('/onesignal') });

    it('posts one notification per subscription id with the App API key and a per-token idempotency key', async () => {
      server.respond(sendPath, (request) => oneSignal.ok(`notif-${(request.body as { include_subscription_ids: string[] }).include_subscription_ids[0]}`));

      const run = await deliver('one-signal', credentials(), subscriber('os-ann', 'one-signal', ['sub-1', 'sub-2']), {
        overrides: { ios_sound: 'ping.caf', url: 'https://shop.example.com/orders/A-1' },
      });

      const requests = server.requestsTo(sendPath).sort((a, b) => a.rawBody.toString().localeCompare(b.rawBody.toString()));
      expect(requests).toHaveLength(2);
      for (const [index, request] of requests.entries()) {
        expect(request.method).toBe('POST');
        expect(request.query).toEqual({ c: 'push' });
        expect(request.headers.authorization).toBe(`Key ${apiKey}`);
        expect(request.headers['content-type']).toBe('application/json');
        expect(request.body).toEqual({
          app_id: appId,
          target_channel: 'push',
          include_subscription_ids: [`sub-${index + 1}`],
          headings: { en: TITLE },
          contents: { en: BODY },
          data: PAYLOAD,
          ios_sound: 'ping.caf',
          url: 'https://shop.example.com/orders/A-1',
          idempotency_key: expect.stringMatching(UUID_V3) as unknown,
        });
      }
      const keys = requests.map((request) => (request.body as { idempotency_key: string }).idempotency_key);
      expect(keys[0]).not.toBe(keys[1]);
      expectSent(run, 'one-signal', 'notif-sub-1', ['sub-1', 'sub-2']);
      expectNoSecrets(run, apiKey);
    });

    it('records a subscription answered with invalid_player_ids (a 200) among two and still sends to the other', async () => {
      server.respond(sendPath, (request) => {
        const [id] = (request.body as { include_subscription_ids: string[] }).include_subscription_ids;
        return id === 'sub-gone' ? oneSignal.invalidPlayer(id) : oneSignal.ok('notif-1');
      });

      const run = await deliver('one-signal', credentials(), subscriber('os-bob', 'one-signal', ['sub-live', 'sub-gone']));

      expectInvalidTokenRecorded(run, 'sub-gone', 'invalid_player_ids', 'OneSignal refused the subscription id as invalid');
      expect(run.message?.provider_message_id).toBe('notif-1');
    });

    it('fails permanently on a 400 with OneSignal’s errors', async () => {
      const answer = oneSignal.error(400, 'app_id not found. You may be missing a Content-Type: application/json header.');
      server.respond(sendPath, answer);

      const run = await deliver('one-signal', credentials(), subscriber('os-cy', 'one-signal', ['sub-1']));

      expectFailedOnce(run, server.requestsTo(sendPath).length, {
        text: 'OneSignal responded with 400: app_id not found. You may be missing a Content-Type: application/json header.',
        // OneSignal's errors carry no code: the worker's default error id.
        errorId: 'unexpected_provider_error',
        response: { status: 400, body: answer.body },
      });
      expectNoSecrets(run, apiKey);
    });

    it('retries a 503 and sends on the second try with the same idempotency key', async () => {
      server.respond(sendPath, (_request, index) => (index === 0 ? { status: 503, body: 'Service Unavailable' } : oneSignal.ok('notif-2')));

      const run = await deliver('one-signal', credentials(), subscriber('os-dan', 'one-signal', ['sub-1']));

      const requests = server.requestsTo(sendPath);
      expectRetriedToSuccess(run, requests.length);
      expect(requests[1].rawBody.equals(requests[0].rawBody)).toBe(true);
      expect(run.message?.provider_message_id).toBe('notif-2');
    });
  });
});
