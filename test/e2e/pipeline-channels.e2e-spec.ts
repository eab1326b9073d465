import { createHmac } from 'node:crypto';
import type { WorkflowDefinition } from '../../lib';
import { useTestApp } from '../fixtures/app';
import { createEnvironment, createIntegration, createSubscriber, type TestEnvironment } from '../fixtures/factories';
import { createWorkflow } from '../fixtures/notification.factory';
import { deliveredLog, finishedRun, logLines, messagesOf, type MessageRow, onlyJob, type RunJobRow, triggerOne } from '../fixtures/delivery-run';
import { eventually, FAST_WORKER, rows } from '../fixtures/pipeline';
import { WebhookReceiver } from '../fixtures/webhook-receiver';

/**
 * The worker's channel steps end to end: a bulk trigger over HTTP, the in-process worker, the real
 * webhook providers posting to a local receiver, and the rows they leave (job, execution log, message).
 */

describe('the trigger pipeline: channel delivery through webhook providers', () => {
  const t = useTestApp('fastify', { options: FAST_WORKER });
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver.close();
  });

  const arrived = (path: string, count = 1) =>
    eventually(async () => receiver.requestsTo(path).length >= count && receiver.requestsTo(path), 10_000, `${count} request(s) on ${path}`);

  describe('each channel end to end', () => {
    it('email: renders subject and content with Liquid, signs the body, keys it by job id and records the message', async () => {
      const env = await createEnvironment(t.moduleRef, 'email');
      const secretKey = 'whsec-email-0123456789';
      const integration = await createIntegration(t.moduleRef, env.environmentId, {
        name: 'Email hook',
        identifier: 'email-hook',
        providerId: 'email-webhook',
        channel: 'email',
        credentials: { webhookUrl: receiver.url('/email'), secretKey, from: 'no-reply@example.com', senderName: 'Shop' },
      });
      await createWorkflow(t.app, env.environmentId, {
        identifier: 'order-shipped',
        name: 'Order shipped',
        steps: [
          {
            type: 'email',
            template: {
              subject: 'Order {{ payload.order.id }} for {{ subscriber.firstName }}',
              content: '<p>Hi {{ subscriber.firstName }} {{ subscriber.lastName | upcase }}, {{ payload.order.items | size }} item(s) shipped to {{ subscriber.email }}</p>',
            },
          },
        ],
      });

      const transactionId = await triggerOne(t, env, {
        name: 'order-shipped',
        to: { subscriberId: 'ann', firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com' },
        payload: { order: { id: 'ORD-7', items: ['a', 'b'] } },
      });
      const run = await finishedRun(t, transactionId);
      const job = onlyJob(run, 'email');
      const [request] = await arrived('/email');

      expect(request.method).toBe('POST');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['idempotency-key']).toBe(job.id);
      expect(request.headers['x-signature']).toBe(createHmac('sha256', secretKey).update(request.rawBody).digest('hex'));
      expect(request.headers['x-signature']).not.toBe(createHmac('sha256', 'another-secret').update(request.rawBody).digest('hex'));
      expect(request.body).toEqual({
        jobId: job.id,
        transactionId,
        environmentId: env.environmentId,
        workflowIdentifier: 'order-shipped',
        subscriberId: 'ann',
        to: 'ann@example.com',
        subject: 'Order ORD-7 for Ann',
        content: '<p>Hi Ann LEE, 2 item(s) shipped to ann@example.com</p>',
        from: 'no-reply@example.com',
        senderName: 'Shop',
        payload: { order: { id: 'ORD-7', items: ['a', 'b'] } },
        overrides: {},
      });

      expect(job).toMatchObject({ status: 'completed', providerId: 'email-webhook', error: null });
      expect(logLines(job)).toEqual(deliveredLog('email-webhook'));
      expect(job.details[3].raw).toEqual({
        providerId: 'email-webhook',
        identifier: 'email-hook',
        name: 'Email hook',
        _environmentId: env.environmentId,
        _id: integration.id,
      });
      expect(job.details[5].raw).toEqual({ status: 200, body: { ok: true } });
      expect(logLines(onlyJob(run, 'trigger'))).toEqual(deliveredLog('x').slice(0, 3));

      const [message] = await messagesOf(t, transactionId);
      expect(message).toMatchObject({
        job_id: job.id,
        channel: 'email',
        status: 'sent',
        provider_id: 'email-webhook',
        email: 'ann@example.com',
        phone: null,
        subject: 'Order ORD-7 for Ann',
        content: '<p>Hi Ann LEE, 2 item(s) shipped to ann@example.com</p>',
        error_text: null,
      });
      // The log's "Message created" line points at the message it wrote.
      const [created] = await rows<{ message_id: string }>(t, `SELECT message_id FROM ntf_execution_detail WHERE job_id = $1 AND detail = 'Message created'`, [job.id]);
      expect(created.message_id).toBe(message.id);
    });

    it('sms: sends the rendered text to the subscriber phone, unsigned without a secret', async () => {
      const env = await createEnvironment(t.moduleRef, 'sms');
      await createIntegration(t.moduleRef, env.environmentId, {
        name: 'SMS gateway',
        providerId: 'generic-sms',
        channel: 'sms',
        credentials: { webhookUrl: receiver.url('/sms'), from: 'SHOP' },
      });
      await createWorkflow(t.app, env.environmentId, {
        identifier: 'otp',
        name: 'OTP',
        steps: [{ type: 'sms', template: { content: 'Code {{ payload.code }} for {{ subscriber.firstName | default: "you" }}' } }],
      });

      const transactionId = await triggerOne(t, env, { name: 'otp', to: { subscriberId: 'sam', phone: '+15550001111' }, payload: { code: 4821 } });
      const run = await finishedRun(t, transactionId);
      const job = onlyJob(run, 'sms');
      const [request] = await arrived('/sms');

      expect(request.headers['idempotency-key']).toBe(job.id);
      expect(request.headers['x-signature']).toBeUndefined();
      expect(request.body).toMatchObject({ jobId: job.id, subscriberId: 'sam', to: '+15550001111', content: 'Code 4821 for you', from: 'SHOP' });
      expect(job).toMatchObject({ status: 'completed', providerId: 'generic-sms', error: null });
      expect(logLines(job)).toEqual(deliveredLog('generic-sms'));
      expect(await messagesOf(t, transactionId)).toEqual([
        expect.objectContaining({ job_id: job.id, channel: 'sms', status: 'sent', provider_id: 'generic-sms', phone: '+15550001111', email: null, content: 'Code 4821 for you' }),
      ]);
    });

    it("chat: posts to the subscriber's own chat-webhook URL (from the trigger or the subscriber API), else to the integration's", async () => {
      const env = await createEnvironment(t.moduleRef, 'chat');
      await createIntegration(t.moduleRef, env.environmentId, {
        name: 'Team chat',
        providerId: 'chat-webhook',
        channel: 'chat',
        credentials: { webhookUrl: receiver.url('/chat-integration'), secretKey: 'chat-secret' },
      });
      await createSubscriber(t.moduleRef, env.environmentId, {
        subscriberId: 'bob',
        firstName: 'Bob',
        channels: [{ providerId: 'chat-webhook', credentials: { webhookUrl: receiver.url('/chat-bob'), channel: '#bob' } }],
      });
      await createWorkflow(t.app, env.environmentId, {
        identifier: 'deploy-done',
        name: 'Deploy done',
        steps: [{ type: 'chat', template: { content: '{{ subscriber.firstName }}: deploy {{ payload.version }} is live' } }],
      });

      const transactionId = await triggerOne(t, env, {
        name: 'deploy-done',
        to: [
          { subscriberId: 'ann', firstName: 'Ann', channels: [{ providerId: 'chat-webhook', credentials: { webhookUrl: receiver.url('/chat-ann') } }] },
          'bob',
          { subscriberId: 'cy', firstName: 'Cy' },
        ],
        payload: { version: 'v2.1' },
      });
      const [ann] = await arrived('/chat-ann');
      const [bob] = await arrived('/chat-bob');
      const [cy] = await arrived('/chat-integration');
      expect(ann.body).toMatchObject({ subscriberId: 'ann', content: 'Ann: deploy v2.1 is live' });
      expect(bob.body).toMatchObject({ subscriberId: 'bob', content: 'Bob: deploy v2.1 is live', channel: '#bob' });
      expect(cy.body).toMatchObject({ subscriberId: 'cy', content: 'Cy: deploy v2.1 is live' });
      for (const request of [ann, bob, cy]) {
        expect(request.headers['x-signature']).toBe(createHmac('sha256', 'chat-secret').update(request.rawBody).digest('hex'));
      }

      const run = await finishedRun(t, transactionId);
      const jobs = run.filter((job) => job.type === 'chat').sort((a, b) => a.externalSubscriberId.localeCompare(b.externalSubscriberId));
      expect(jobs.map((job) => [job.externalSubscriberId, job.status, job.providerId])).toEqual([
        ['ann', 'completed', 'chat-webhook'],
        ['bob', 'completed', 'chat-webhook'],
        ['cy', 'completed', 'chat-webhook'],
      ]);
      for (const job of jobs) expect(logLines(job)).toEqual(deliveredLog('chat-webhook'));
      expect([ann, bob, cy].map((request) => request.headers['idempotency-key'])).toEqual(jobs.map((job) => job.id));
      const messages = await rows<MessageRow & { subscriber: string }>(
        t,
        `SELECT m.*, s.subscriber_id AS subscriber FROM ntf_message m JOIN ntf_subscriber s ON s.id = m.subscriber_id WHERE m.transaction_id = $1 ORDER BY s.subscriber_id`,
        [transactionId],
      );
      expect(messages.map((m) => [m.subscriber, m.channel, m.status, m.provider_id, m.direct_webhook_url])).toEqual([
        ['ann', 'chat', 'sent', 'chat-webhook', receiver.url('/chat-ann')],
        ['bob', 'chat', 'sent', 'chat-webhook', receiver.url('/chat-bob')],
        ['cy', 'chat', 'sent', 'chat-webhook', null],
      ]);
    });

    it("push: sends to the device tokens of the subscriber's push-webhook channel", async () => {
      const env = await createEnvironment(t.moduleRef, 'push');
      await createIntegration(t.moduleRef, env.environmentId, {
        name: 'Push relay',
        providerId: 'push-webhook',
        channel: 'push',
        credentials: { webhookUrl: receiver.url('/push') },
      });
      await createWorkflow(t.app, env.environmentId, {
        identifier: 'new-follower',
        name: 'New follower',
        steps: [{ type: 'push', template: { title: 'Hi {{ subscriber.firstName }}', content: '{{ payload.follower }} follows you' } }],
      });

      const transactionId = await triggerOne(t, env, {
        name: 'new-follower',
        to: { subscriberId: 'pia', firstName: 'Pia', channels: [{ providerId: 'push-webhook', credentials: { deviceTokens: ['tok-1', 'tok-2'] } }] },
        payload: { follower: 'Max' },
      });
      const run = await finishedRun(t, transactionId);
      const job = onlyJob(run, 'push');
      const [request] = await arrived('/push');

      expect(request.headers['idempotency-key']).toBe(job.id);
      expect(request.body).toMatchObject({ jobId: job.id, subscriberId: 'pia', target: ['tok-1', 'tok-2'], title: 'Hi Pia', content: 'Max follows you' });
      expect(job).toMatchObject({ status: 'completed', providerId: 'push-webhook', error: null });
      expect(logLines(job)).toEqual(deliveredLog('push-webhook'));
      expect(await messagesOf(t, transactionId)).toEqual([
        expect.objectContaining({ channel: 'push', status: 'sent', provider_id: 'push-webhook', device_tokens: ['tok-1', 'tok-2'], title: 'Hi Pia', content: 'Max follows you' }),
      ]);
    });
  });

  describe('failures', () => {
    let env: TestEnvironment;

    beforeAll(async () => {
      env = await createEnvironment(t.moduleRef, 'failures');
      await createIntegration(t.moduleRef, env.environmentId, {
        name: 'Email hook',
        providerId: 'email-webhook',
        channel: 'email',
        credentials: { webhookUrl: receiver.url('/fail-email') },
      });
      await createIntegration(t.moduleRef, env.environmentId, { name: 'SMS', providerId: 'generic-sms', channel: 'sms', credentials: { webhookUrl: receiver.url('/fail-sms') } });
      // A chat integration without a URL: only subscribers with their own URL can be reached.
      await createIntegration(t.moduleRef, env.environmentId, { name: 'Chat', providerId: 'chat-webhook', channel: 'chat', credentials: {} });
      await createIntegration(t.moduleRef, env.environmentId, { name: 'Push', providerId: 'push-webhook', channel: 'push', credentials: { webhookUrl: receiver.url('/fail-push') } });
    });

    /** Triggers a one-step workflow (defined here) and returns the finished run and its messages. */
    async function runOne(target: TestEnvironment, identifier: string, definition: Pick<WorkflowDefinition, 'steps'>, to: unknown, payload: Record<string, unknown> = {}) {
      await createWorkflow(t.app, target.environmentId, { identifier, name: identifier, ...definition });
      const transactionId = await triggerOne(t, target, { name: identifier, to, payload });
      const run = await finishedRun(t, transactionId);
      return { transactionId, run, messages: await messagesOf(t, transactionId) };
    }

    /** The outcome every failure before the provider call has: failed job, Failed last line, no message. */
    function expectFailedBeforeSend(job: RunJobRow, detail: string, providerId: string | null) {
      expect(job.status).toBe('failed');
      expect(job.error).toMatchObject({ message: detail });
      expect(job.details.at(-1)).toMatchObject({ detail, status: 'Failed', providerId });
      expect(job.details.map((d) => d.detail)).not.toContain('Message created');
    }

    it('no active integration for the channel: "Subscriber does not have an active integration", no message', async () => {
      const bare = await createEnvironment(t.moduleRef, 'no integrations');
      // An inactive integration does not count.
      await createIntegration(t.moduleRef, bare.environmentId, { name: 'Off', providerId: 'generic-sms', channel: 'sms', active: false, credentials: { webhookUrl: receiver.url('/off') } });
      const { run, messages } = await runOne(bare, 'sms-only', { steps: [{ type: 'sms', template: { content: 'hello' } }] }, { subscriberId: 'ann', phone: '+15550002222' });
      const job = onlyJob(run, 'sms');
      expectFailedBeforeSend(job, 'Subscriber does not have an active integration', null);
      expect(job.details.map((d) => d.detail)).toEqual(['Step created', 'Step queued', 'Start sending message', 'Subscriber does not have an active integration']);
      expect(messages).toEqual([]);
      expect(receiver.requestsTo('/off')).toEqual([]);
    });

    it('a subscriber without email or phone: "Subscriber missing recipient details" on each step, and the run goes on', async () => {
      const { run, messages } = await runOne(
        env,
        'unreachable',
        {
          steps: [
            { type: 'email', template: { subject: 's', content: 'c' } },
            { type: 'sms', template: { content: 'c' } },
            { type: 'in_app', template: { content: 'still here' } },
          ],
        },
        { subscriberId: 'nobody', firstName: 'No' },
      );
      expectFailedBeforeSend(onlyJob(run, 'email'), 'Subscriber missing recipient details', 'email-webhook');
      expectFailedBeforeSend(onlyJob(run, 'sms'), 'Subscriber missing recipient details', 'generic-sms');
      expect(onlyJob(run, 'email').details.at(-1)?.raw).toEqual({ missing: 'email' });
      expect(onlyJob(run, 'sms').details.at(-1)?.raw).toEqual({ missing: 'phone' });
      expect(onlyJob(run, 'email').details.map((d) => d.detail)).toContain('Integration instance selected');
      expect(messages.map((m) => [m.channel, m.content])).toEqual([['in_app', 'still here']]);
      expect(receiver.requestsTo('/fail-email')).toEqual([]);
      expect(receiver.requestsTo('/fail-sms')).toEqual([]);
    });

    it('chat with no webhook URL anywhere: "Webhook URL for the chat channel is missing"', async () => {
      const { run, messages } = await runOne(env, 'chat-nowhere', { steps: [{ type: 'chat', template: { content: 'hi' } }] }, { subscriberId: 'nochat' });
      expectFailedBeforeSend(onlyJob(run, 'chat'), 'Webhook URL for the chat channel is missing', 'chat-webhook');
      expect(messages).toEqual([]);
    });

    it('push without device tokens: "Subscriber credentials is missing the tokens for sending a push notification message"', async () => {
      const { run, messages } = await runOne(
        env,
        'push-nowhere',
        { steps: [{ type: 'push', template: { title: 't', content: 'hi' } }] },
        [{ subscriberId: 'notokens' }, { subscriberId: 'emptytokens', channels: [{ providerId: 'push-webhook', credentials: { deviceTokens: [] } }] }],
      );
      const jobs = run.filter((job) => job.type === 'push');
      expect(jobs).toHaveLength(2);
      for (const job of jobs) expectFailedBeforeSend(job, 'Subscriber credentials is missing the tokens for sending a push notification message', 'push-webhook');
      expect(messages).toEqual([]);
      expect(receiver.requestsTo('/fail-push')).toEqual([]);
    });

    it('a receiver answering 500: message in error with its text, "Unexpected provider error" with the status in raw', async () => {
      receiver.respond('/down', { status: 500, body: { error: 'boom' } });
      const down = await createEnvironment(t.moduleRef, 'receiver down');
      await createIntegration(t.moduleRef, down.environmentId, { name: 'Down', providerId: 'email-webhook', channel: 'email', credentials: { webhookUrl: receiver.url('/down') } });
      const { run, messages } = await runOne(
        down,
        'to-a-dead-end',
        { steps: [{ type: 'email', template: { subject: 'Hi', content: 'Body' } }, { type: 'in_app', template: { content: 'after' } }] },
        { subscriberId: 'ann', email: 'ann@example.com' },
      );
      const job = onlyJob(run, 'email');
      expect(job.status).toBe('failed');
      expect(job.providerId).toBe('email-webhook');
      // A 500 is transient; with `delivery.retryLimit: 0` (FAST_WORKER) the first try is the last one.
      expect(job.error).toEqual({ message: 'Webhook responded with 500', raw: { error: 'Webhook responded with 500', response: { status: 500, body: { error: 'boom' } }, attempts: 1 } });
      expect(logLines(job)).toEqual([
        ...deliveredLog('email-webhook').slice(0, 5),
        { detail: 'Unexpected provider error', status: 'Failed', providerId: 'email-webhook' },
      ]);
      expect(job.details.at(-1)?.raw).toEqual({ error: 'Webhook responded with 500', response: { status: 500, body: { error: 'boom' } }, attempts: 1 });
      const email = messages.find((m) => m.channel === 'email');
      expect(email).toMatchObject({ job_id: job.id, status: 'error', error_text: 'Webhook responded with 500', provider_id: 'email-webhook', email: 'ann@example.com' });
      expect(receiver.requestsTo('/down')).toHaveLength(1);
      expect(onlyJob(run, 'in_app').status).toBe('completed');
    });

    it.each([
      ['a syntax error', { subject: 'Hi {{ subscriber.firstName', content: 'Body' }],
      ['an unknown filter', { subject: 'Hi', content: '{{ payload.name | shout }}' }],
    ])('%s in a template: "Message content could not be generated", and the worker keeps working', async (what, template) => {
      const identifier = what === 'a syntax error' ? 'broken-syntax' : 'broken-filter';
      const { run, messages } = await runOne(env, identifier, { steps: [{ type: 'email', template }] }, { subscriberId: 'ann', email: 'ann@example.com' }, { name: 'x' });
      const job = onlyJob(run, 'email');
      expectFailedBeforeSend(job, 'Message content could not be generated', 'email-webhook');
      expect(job.details.at(-1)?.raw).toEqual({ error: expect.stringMatching(/^Template could not be parsed: /) });
      expect(messages).toEqual([]);

      // The next trigger is delivered as usual.
      const before = receiver.requestsTo('/fail-email').length;
      const next = await runOne(env, `${identifier}-fixed`, { steps: [{ type: 'email', template: { subject: 'Hi', content: 'fine' } }] }, { subscriberId: 'ann' });
      expect(onlyJob(next.run, 'email').status).toBe('completed');
      expect(next.messages).toEqual([expect.objectContaining({ status: 'sent', content: 'fine' })]);
      expect(await arrived('/fail-email', before + 1)).toHaveLength(before + 1);
    });
  });
});
