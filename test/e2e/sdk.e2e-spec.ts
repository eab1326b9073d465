import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { Novu } from '@novu/api';
import { ChannelConnectionsService, verifyWebhookSignature } from '../../lib';
import { ADAPTERS, useTestApp } from '../fixtures/app';
import { seedManyChannelConnections } from '../fixtures/channel-connection.factory';
import { createEnvironment, createIntegration, createSubscriber, type TestEnvironment } from '../fixtures/factories';
import { createMessages } from '../fixtures/message.factory';
import { createNotification, createWorkflow } from '../fixtures/notification.factory';
import { eventually, FAST_WORKER, rows } from '../fixtures/pipeline';
import { WebhookReceiver } from '../fixtures/webhook-receiver';

/** Job statuses after which a job never changes again. */
const FINAL_JOB_STATUSES = ['completed', 'failed', 'canceled', 'skipped', 'merged'];
const WEBHOOK_SECRET = 'whsec-sdk-loop';

/**
 * Drives the running app with Novu's official SDK (`@novu/api`), unchanged but for its `serverURL`.
 * The SDK validates every response against its own strict schemas (closed enums, required fields,
 * non-nullable optionals), so each call below that returns is a call whose body parsed.
 */
describe.each(ADAPTERS)('the official SDK against the app (%s)', (adapter) => {
  // The worker runs in the app, polling fast, so the full loop below completes in a few seconds.
  const t = useTestApp(adapter, { options: FAST_WORKER });
  let env: TestEnvironment;
  let novu: Novu;
  let receiver: WebhookReceiver;
  let novuServerUrl: () => string;
  const CONNECTIONS = 260;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    env = await createEnvironment(t.moduleRef, 'SDK');
    novu = new Novu({ secretKey: env.apiKey, serverURL: `http://127.0.0.1:${port}`, retryConfig: { strategy: 'none' } });
    novuServerUrl = () => `http://127.0.0.1:${port}`;
  });
  afterAll(() => receiver.close());

  it('subscribers.properties.updateOnlineFlag', async () => {
    await createSubscriber(t.moduleRef, env.environmentId, { subscriberId: 'sdk-ada', firstName: 'Ada', email: 'ada@example.com' });
    const offline = await novu.subscribers.properties.updateOnlineFlag({ isOnline: false }, 'sdk-ada');
    // The SDK renames underscored fields (`_environmentId` → `environmentId`).
    expect(offline.result).toMatchObject({ subscriberId: 'sdk-ada', isOnline: false, deleted: false, environmentId: env.environmentId });
    expect(typeof offline.result.lastOnlineAt).toBe('string');
    const online = await novu.subscribers.properties.updateOnlineFlag({ isOnline: true }, 'sdk-ada');
    expect(online.result.isOnline).toBe(true);
    expect(online.result.lastOnlineAt).toBe(offline.result.lastOnlineAt);
  });

  it('integrations.list', async () => {
    await createIntegration(t.moduleRef, env.environmentId, { identifier: 'sdk-sendgrid' });
    await createIntegration(t.moduleRef, env.environmentId, { identifier: 'sdk-twilio', providerId: 'twilio', channel: 'sms' });
    const res = await novu.integrations.list();
    expect(res.result.map((i) => i.identifier)).toEqual(['sdk-sendgrid', 'sdk-twilio']);
    for (const integration of res.result) expect(integration.credentials).toBeUndefined();
  });

  it('subscribers.messages.markAllAs', async () => {
    const subscriber = await createSubscriber(t.moduleRef, env.environmentId, { subscriberId: 'sdk-grace' });
    const messages = await createMessages(t.moduleRef, subscriber, 3);
    const res = await novu.subscribers.messages.markAllAs({ messageId: messages.map((m) => m.id), markAs: 'read' }, 'sdk-grace');
    expect(res.result).toHaveLength(3);
    for (const message of res.result) expect(message).toMatchObject({ read: true, seen: true, channel: 'in_app', status: 'sent' });
    const single = await novu.subscribers.messages.markAllAs({ messageId: messages[0].id, markAs: 'unseen' }, 'sdk-grace');
    expect(single.result[0].seen).toBe(false);
  });

  it('notifications.retrieve on a run with in-app, delay, digest and email jobs', async () => {
    const subscriber = await createSubscriber(t.moduleRef, env.environmentId, { subscriberId: 'sdk-alan', firstName: 'Alan', email: 'alan@example.com' });
    const workflow = await createWorkflow(t.moduleRef, env.environmentId);
    const { notification } = await createNotification(t.moduleRef, env.environmentId, { subscriber, workflow });
    const res = await novu.notifications.retrieve(notification.id);
    expect(res.result.id).toBe(notification.id);
    expect(res.result.jobs?.map((job) => job.type)).toEqual(['in_app', 'delay', 'digest', 'email']);
    for (const job of res.result.jobs ?? []) {
      expect(job.executionDetails.length).toBeGreaterThan(0);
      expect(typeof job.providerId).toBe('string');
    }
  });

  it('channelConnections.list: a full forward and backward walk', async () => {
    await seedManyChannelConnections(t.moduleRef, env.environmentId, CONNECTIONS);
    const forward: string[] = [];
    const pages: Array<{ previous: string | null; identifiers: string[] }> = [];
    let after: string | undefined;
    for (;;) {
      const page = await novu.channelConnections.list({ limit: 25, after });
      expect(page.result.totalCount).toBe(CONNECTIONS);
      expect(page.result.totalCountCapped).toBe(false);
      const identifiers = page.result.data.map((c) => c.identifier);
      forward.push(...identifiers);
      pages.push({ previous: page.result.previous, identifiers });
      if (!page.result.next) break;
      after = page.result.next;
    }
    expect(forward).toHaveLength(CONNECTIONS);
    expect(new Set(forward).size).toBe(CONNECTIONS);

    // Backward from the last page, following `previous`, must give the same items in the same order.
    const backward: string[][] = [pages[pages.length - 1].identifiers];
    let before = pages[pages.length - 1].previous;
    while (before) {
      const page = await novu.channelConnections.list({ limit: 25, before });
      backward.unshift(page.result.data.map((c) => c.identifier));
      before = page.result.previous;
    }
    expect(backward.flat()).toEqual(forward);
  });

  it('the full loop: triggerBulk → worker → notifications.list → retrieve → messages.retrieve → markAllAs → feed', async () => {
    await createIntegration(t.moduleRef, env.environmentId, {
      name: 'Email webhook',
      identifier: 'sdk-email-webhook',
      providerId: 'email-webhook',
      channel: 'email',
      primary: true,
      credentials: { webhookUrl: receiver.url('/email'), secretKey: WEBHOOK_SECRET, from: 'no-reply@example.com' },
    });
    await createWorkflow(t.app, env.environmentId, {
      identifier: 'sdk-loop',
      name: 'SDK loop',
      steps: [
        { type: 'in_app', template: { content: 'Hi {{ subscriber.firstName }}: {{ payload.item }} for order {{ payload.orderId }}', cta: { type: 'redirect', data: { url: '/orders/{{ payload.orderId }}' } } } },
        { type: 'delay', metadata: { type: 'regular', amount: 1, unit: 'seconds' } },
        { type: 'digest', metadata: { type: 'regular', amount: 2, unit: 'seconds', digestKey: 'orderId' } },
        { type: 'email', template: { subject: 'Order {{ payload.orderId }}', content: '{{ step.total_count }} update(s): {% for e in step.events %}{{ e.item }} {% endfor %}' } },
      ],
    });

    // Ada gets two events of one order (digested into one email), Lin one event.
    const bulk = await novu.triggerBulk({
      events: [
        { workflowId: 'sdk-loop', to: { subscriberId: 'loop-ada', firstName: 'Ada', email: 'ada@example.com' }, payload: { orderId: 'A-1', item: 'book' } },
        { workflowId: 'sdk-loop', to: 'loop-ada', payload: { orderId: 'A-1', item: 'pen' } },
        { workflowId: 'sdk-loop', to: [{ subscriberId: 'loop-lin', firstName: 'Lin', email: 'lin@example.com' }], payload: { orderId: 'B-2', item: 'lamp' } },
      ],
    });
    expect(bulk.result.map((r) => r.status)).toEqual(['processed', 'processed', 'processed']);
    const transactionIds = bulk.result.map((r) => r.transactionId!);
    for (const transactionId of transactionIds) expect(transactionId).toMatch(/^txn_[0-9a-f]{24}$/);

    // The worker is done when every job of the three runs has reached a final status.
    const jobs = await eventually(
      async () => {
        const found = await rows<{ transaction_id: string; type: string; status: string }>(
          t,
          'SELECT transaction_id, type, status FROM ntf_job WHERE environment_id = $1 AND transaction_id = ANY($2::text[]) ORDER BY created_at, id',
          [env.environmentId, transactionIds],
        );
        return found.length === 15 && found.every((job) => FINAL_JOB_STATUSES.includes(job.status)) && found;
      },
      20_000,
      'the three runs to finish',
    );
    const statuses = (transactionId: string) => jobs.filter((job) => job.transaction_id === transactionId).map((job) => `${job.type}:${job.status}`);
    expect(statuses(transactionIds[0])).toEqual(['trigger:completed', 'in_app:completed', 'delay:completed', 'digest:completed', 'email:completed']);
    // The second event of the order joined the first one's open digest: its run ends there.
    expect(statuses(transactionIds[1])).toEqual(['trigger:completed', 'in_app:completed', 'delay:completed', 'digest:merged', 'email:merged']);
    expect(statuses(transactionIds[2])).toEqual(statuses(transactionIds[0]));

    // Two emails went out through the webhook, signed, each carrying its job id as idempotency key.
    const emails = await receiver.waitFor(2);
    const byRecipient = new Map(emails.map((request) => [(request.body as { to: string }).to, request]));
    expect((byRecipient.get('ada@example.com')?.body as { content: string }).content).toBe('2 update(s): book pen ');
    expect((byRecipient.get('lin@example.com')?.body as { subject: string }).subject).toBe('Order B-2');
    for (const request of emails) {
      expect(verifyWebhookSignature(request.rawBody, request.headers['x-signature'] as string, WEBHOOK_SECRET)).toBe(true);
      expect(request.headers['idempotency-key']).toBe((request.body as { jobId: string }).jobId);
    }

    // notifications.list by transactionId, then each notification in full.
    const listed = await novu.notifications.list({ transactionId: transactionIds[0] });
    expect(listed.result.data).toHaveLength(1);
    expect(listed.result).toMatchObject({ page: 0, hasMore: false });
    const notification = listed.result.data[0];
    expect(notification.transactionId).toBe(transactionIds[0]);
    const retrieved = await novu.notifications.retrieve(notification.id!);
    expect(retrieved.result.jobs?.map((job) => [job.type, job.status])).toEqual([
      ['in_app', 'completed'],
      ['delay', 'completed'],
      ['digest', 'completed'],
      ['email', 'completed'],
    ]);
    const emailJob = retrieved.result.jobs!.find((job) => job.type === 'email')!;
    expect(emailJob.providerId).toBe('email-webhook');
    expect(emailJob.executionDetails.map((d) => d.detail)).toEqual(
      expect.arrayContaining(['Integration instance selected', 'Message created', 'Message sent']),
    );
    const merged = await novu.notifications.list({ transactionId: transactionIds[1] });
    expect(merged.result.data[0].digestedNotificationId).toBe(notification.id);
    const mergedRun = await novu.notifications.retrieve(merged.result.data[0].id!);
    expect(mergedRun.result.jobs?.map((job) => job.status)).toEqual(['completed', 'completed', 'merged', 'merged']);
    const bySubscriber = await novu.notifications.list({ subscriberIds: ['loop-ada'], channels: ['in_app'], limit: 10 });
    expect(bySubscriber.result.data.map((n) => n.transactionId).sort()).toEqual([transactionIds[0], transactionIds[1]].sort());

    // messages.retrieve (GET /v1/messages): three in-app messages and two emails.
    const messages = await novu.messages.retrieve({ transactionId: transactionIds, limit: 20 });
    expect(messages.result.data.map((m) => m.channel).sort()).toEqual(['email', 'email', 'in_app', 'in_app', 'in_app']);
    const adaInApp = await novu.messages.retrieve({ subscriberId: 'loop-ada', channel: 'in_app' });
    expect(adaInApp.result.data.map((m) => m.content).sort()).toEqual(['Hi Ada: book for order A-1', 'Hi Ada: pen for order A-1']);
    for (const message of adaInApp.result.data) expect(message).toMatchObject({ status: 'sent', read: false, seen: false, cta: { data: { url: '/orders/A-1' } } });

    // subscribers.messages.markAllAs on Ada's in-app messages.
    const adaIds = adaInApp.result.data.map((m) => m.id!);
    const marked = await novu.subscribers.messages.markAllAs({ messageId: adaIds, markAs: 'read' }, 'loop-ada');
    expect(marked.result.map((m) => m.id).sort()).toEqual([...adaIds].sort());
    for (const message of marked.result) expect(message).toMatchObject({ read: true, seen: true, channel: 'in_app' });

    // The subscriber's feed (GET /v1/subscribers/{id}/notifications/feed), with its read filter.
    const feed = await novu.subscribers.notifications.feed({ subscriberId: 'loop-ada', limit: 10 });
    expect(feed.result.data.map((item) => item.id).sort()).toEqual([...adaIds].sort());
    for (const item of feed.result.data) expect(item).toMatchObject({ read: true, seen: true, channel: 'in_app' });
    const unread = await novu.subscribers.notifications.feed({ subscriberId: 'loop-ada', read: false });
    expect(unread.result.data).toEqual([]);
    const linFeed = await novu.subscribers.notifications.feed({ subscriberId: 'loop-lin', payload: Buffer.from(JSON.stringify({ orderId: 'B-2' })).toString('base64') });
    expect(linFeed.result.data.map((item) => item.content)).toEqual(['Hi Lin: lamp for order B-2']);
  });

  it('one step per channel through real vendors: every job completed with the vendor’s message id (notifications.retrieve)', async () => {
    // A second app-wide vendor: one local server answering as SendGrid, Twilio, Slack's Web API, Google's
    // token endpoint and FCM do (each provider has its own spec of the exact requests).
    const vendor = await WebhookReceiver.start();
    try {
      vendor
        .respond('/v3/mail/send', { status: 202, body: '', headers: { 'x-message-id': 'sg-msg-1' } })
        .respond('/2010-04-01/Accounts/AC0123/Messages.json', { status: 201, body: { sid: 'SM-msg-1', status: 'queued' } })
        .respond('/chat.postMessage', { status: 200, body: { ok: true, channel: 'C-ops', ts: '1700000000.000100' } })
        .respond('/token', { status: 200, body: { access_token: 'ya29.sdk-token', expires_in: 3600, token_type: 'Bearer' } })
        .respond('/v1/projects/sdk-project/messages:send', { status: 200, body: { name: 'projects/sdk-project/messages/fcm-msg-1' } });
      const channels = await createEnvironment(t.moduleRef, 'SDK channels');
      const client = new Novu({ secretKey: channels.apiKey, serverURL: novuServerUrl(), retryConfig: { strategy: 'none' } });
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const serviceAccount = JSON.stringify({
        type: 'service_account',
        project_id: 'sdk-project',
        client_email: 'notifier@sdk-project.iam.gserviceaccount.com',
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
        token_uri: vendor.url('/token'),
      });
      const base = vendor.url('');
      const integrations = [
        { identifier: 'sg', providerId: 'sendgrid', channel: 'email' as const, credentials: { apiKey: 'SG.sdk-key', from: 'shop@example.com', baseUrl: base } },
        { identifier: 'tw', providerId: 'twilio', channel: 'sms' as const, credentials: { accountSid: 'AC0123', token: 'tw-sdk-token', from: '+15550000000', baseUrl: base } },
        { identifier: 'sl', providerId: 'slack', channel: 'chat' as const, credentials: { baseUrl: base } },
        { identifier: 'fc', providerId: 'fcm', channel: 'push' as const, credentials: { serviceAccount, baseUrl: base } },
      ];
      for (const integration of integrations) await createIntegration(t.moduleRef, channels.environmentId, { name: integration.providerId, primary: true, ...integration });
      await t.app.get(ChannelConnectionsService).create(channels.environmentId, {
        identifier: 'sdk-slack-connection',
        channel: 'chat',
        providerId: 'slack',
        integrationIdentifier: 'sl',
        subscriberId: 'omni',
        workspace: { id: 'T-sdk', name: 'SDK workspace' },
        auth: { accessToken: 'xoxb-sdk-token' },
      });
      // The Slack channel and the device token are channel settings the host stored (the SDK's trigger
      // payload carries only webhookUrl and deviceTokens in its channels).
      await createSubscriber(t.moduleRef, channels.environmentId, {
        subscriberId: 'omni',
        channels: [
          { providerId: 'slack', credentials: { channel: 'C-ops' } },
          { providerId: 'fcm', credentials: { deviceTokens: ['device-token-1'] } },
        ],
      });
      await createWorkflow(t.app, channels.environmentId, {
        identifier: 'every-channel',
        name: 'Every channel',
        steps: [
          { type: 'in_app', template: { content: 'Order {{ payload.orderId }} shipped' } },
          { type: 'email', template: { subject: 'Order {{ payload.orderId }}', content: '<p>Order <b>{{ payload.orderId }}</b> shipped</p>' } },
          { type: 'sms', template: { content: 'Order {{ payload.orderId }} shipped' } },
          { type: 'chat', template: { content: 'Order {{ payload.orderId }} shipped' } },
          { type: 'push', template: { title: 'Shipped', content: 'Order {{ payload.orderId }} shipped' } },
        ],
      });

      const bulk = await client.triggerBulk({
        events: [
          {
            workflowId: 'every-channel',
            to: { subscriberId: 'omni', firstName: 'Omni', email: 'omni@example.com', phone: '+15551234567' },
            payload: { orderId: 'O-9' },
          },
        ],
      });
      expect(bulk.result[0].status).toBe('processed');
      const transactionId = bulk.result[0].transactionId!;
      await eventually(
        async () => {
          const found = await rows<{ status: string }>(t, 'SELECT status FROM ntf_job WHERE environment_id = $1 AND transaction_id = $2', [channels.environmentId, transactionId]);
          return found.length === 6 && found.every((job) => FINAL_JOB_STATUSES.includes(job.status));
        },
        20_000,
        'the run to finish',
      );

      const [listed] = (await client.notifications.list({ transactionId })).result.data;
      const retrieved = await client.notifications.retrieve(listed.id!);
      const jobs = retrieved.result.jobs ?? [];
      expect(jobs.map((job) => [job.type, job.status, job.providerId])).toEqual([
        ['in_app', 'completed', 'novu'],
        ['email', 'completed', 'sendgrid'],
        ['sms', 'completed', 'twilio'],
        ['chat', 'completed', 'slack'],
        ['push', 'completed', 'fcm'],
      ]);
      const vendorIds: Record<string, string> = { email: 'sg-msg-1', sms: 'SM-msg-1', chat: '1700000000.000100', push: 'projects/sdk-project/messages/fcm-msg-1' };
      for (const job of jobs.filter((j) => j.type !== 'in_app')) {
        const sent = job.executionDetails.find((detail) => detail.detail === 'Message sent');
        expect(sent).toMatchObject({ status: 'Success', providerId: job.providerId });
        expect(String(sent?.raw)).toContain(vendorIds[job.type]);
      }
      const stored = await rows<{ channel: string; status: string; provider_message_id: string | null }>(
        t,
        'SELECT channel, status, provider_message_id FROM ntf_message WHERE environment_id = $1 AND transaction_id = $2 ORDER BY channel',
        [channels.environmentId, transactionId],
      );
      expect(stored).toEqual([
        { channel: 'chat', status: 'sent', provider_message_id: vendorIds.chat },
        { channel: 'email', status: 'sent', provider_message_id: vendorIds.email },
        { channel: 'in_app', status: 'sent', provider_message_id: null },
        { channel: 'push', status: 'sent', provider_message_id: vendorIds.push },
        { channel: 'sms', status: 'sent', provider_message_id: vendorIds.sms },
      ]);
      // The secrets went to the vendor, and nowhere else the SDK can read.
      expect(vendor.requestsTo('/chat.postMessage')[0].headers.authorization).toBe('Bearer xoxb-sdk-token');
      expect(JSON.stringify(retrieved.result)).not.toMatch(/xoxb-sdk-token|SG\.sdk-key|tw-sdk-token|ya29\.sdk-token|PRIVATE KEY/);
    } finally {
      await vendor.close();
    }
  });
});
