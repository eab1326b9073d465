import { Injectable } from '@nestjs/common';
import {
  DeliveryError,
  type DeliveryMessage,
  DeliveryProvider,
  DeliveryProviderRegistry,
  type DeliveryResult,
  type IntegrationCredentials,
  IntegrationsService,
  RequestValidationException,
} from '../../lib';
import { useTestApp } from '../fixtures/app';
import { finishedRun, messagesOf, onlyJob, type RunJobRow, triggerOne } from '../fixtures/delivery-run';
import { createEnvironment, createIntegration, type TestEnvironment } from '../fixtures/factories';
import { createWorkflow } from '../fixtures/notification.factory';
import { rows } from '../fixtures/pipeline';
import { WebhookReceiver } from '../fixtures/webhook-receiver';

/**
 * What the worker does around every provider (issue 4): retries of transient failures through the
 * queue with `isRetry` lines, permanent failures not retried, the vendor's answer redacted, sends
 * bounded in time, host providers selected by providerId, and credentials checked at creation.
 * The generic webhook providers stand in for "a vendor" here; each vendor has its own spec.
 */

/** A host's own provider: injected dependencies, selected by its providerId. */
@Injectable()
class OutboxLedger {
  readonly sent: Array<{ jobId: string; to: string; subject?: string; apiKey: unknown }> = [];
}

@Injectable()
class LedgerEmailProvider extends DeliveryProvider {
  readonly providerId = 'mandrill';
  readonly channel = 'email';
  override readonly requiredCredentials = ['apiKey', 'from'];

  constructor(private readonly ledger: OutboxLedger) {
    super();
  }

  async send(message: DeliveryMessage, credentials: IntegrationCredentials): Promise<DeliveryResult> {
    this.ledger.sent.push({ jobId: message.jobId, to: message.to.email!, subject: message.subject, apiKey: credentials.apiKey });
    if (message.to.email === 'bounce@example.com') throw new DeliveryError('Mandrill rejected the recipient', { reject_reason: 'hard-bounce' }, { code: 'hard-bounce' });
    return { id: `ledger-${this.ledger.sent.length}`, raw: { queued: true } };
  }
}

const SECRET = 'whsec-retry-secret-0123456789';
const OPTIONS = {
  worker: { pollingIntervalSeconds: 0.5, batchSize: 20, concurrency: 20 },
  delivery: { retryLimit: 2, retryDelaySeconds: 0.05, timeoutSeconds: 1 },
  providers: [LedgerEmailProvider],
};

describe('delivery: retries, permanent failures, redaction, host providers, credential checks', () => {
  const t = useTestApp('fastify', { options: OPTIONS, extraProviders: [OutboxLedger] });
  let receiver: WebhookReceiver;
  let path = 0;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver.close();
  });

  /** An environment with an email-webhook integration posting to a fresh receiver path, and a one-step workflow. */
  async function emailSetup(webhookUrl?: string): Promise<{ env: TestEnvironment; hook: string }> {
    const env = await createEnvironment(t.moduleRef, 'retries');
    const hook = `/hook-${++path}`;
    await createIntegration(t.moduleRef, env.environmentId, {
      name: 'Email hook',
      providerId: 'email-webhook',
      channel: 'email',
      credentials: { webhookUrl: webhookUrl ?? receiver.url(hook), secretKey: SECRET, from: 'shop@example.com' },
    });
    await createWorkflow(t.app, env.environmentId, {
      identifier: 'receipt',
      name: 'Receipt',
      steps: [{ type: 'email', template: { subject: 'Receipt {{ payload.n }}', content: '<p>Thanks</p>' } }],
    });
    return { env, hook };
  }

  const send = (env: TestEnvironment, email = 'ann@example.com') => triggerOne(t, env, { name: 'receipt', to: { subscriberId: 'ann', email }, payload: { n: 1 } });

  async function delivered(transactionId: string): Promise<{ job: RunJobRow; message: Awaited<ReturnType<typeof messagesOf>>[number]; messages: number }> {
    const run = await finishedRun(t, transactionId, 20_000);
    const messages = await messagesOf(t, transactionId);
    return { job: onlyJob(run, 'email'), message: messages[0], messages: messages.length };
  }

  describe('transient failures', () => {
    it('retries a 503 through the queue: same idempotency key, retry lines marked isRetry, one message updated to sent', async () => {
      const { env, hook } = await emailSetup();
      receiver.respond(hook, (_request, index) => (index === 0 ? { status: 503, body: { error: 'maintenance' } } : { status: 202, body: { id: 'vendor-42' } }));

      const { job, message, messages } = await delivered(await send(env));
      const requests = receiver.requestsTo(hook);

      expect(requests).toHaveLength(2);
      expect(requests[1].headers['idempotency-key']).toBe(requests[0].headers['idempotency-key']);
      expect(requests[0].headers['idempotency-key']).toBe(job.id);
      expect(job.status).toBe('completed');
      expect(messages).toBe(1);
      expect(message).toMatchObject({ status: 'sent', provider_message_id: 'vendor-42' });
      expect(job.details.map((d) => [d.detail, d.status, d.isRetry])).toEqual([
        ['Step created', 'Pending', false],
        ['Step queued', 'Pending', false],
        ['Start sending message', 'Pending', false],
        ['Integration instance selected', 'Pending', false],
        ['Message created', 'Pending', false],
        ['Provider error, the send will be retried', 'Warning', false],
        ['Start sending message', 'Pending', true],
        ['Integration instance selected', 'Pending', true],
        ['Message sent', 'Success', true],
      ]);
      const warning = job.details[5].raw as Record<string, unknown>;
      expect(warning).toMatchObject({ error: 'Webhook responded with 503', response: { status: 503, body: { error: 'maintenance' } }, attempt: 1, retryLimit: 2 });
      // Both tries' lines point at the one message.
      const [{ message_id: created }] = await rows<{ message_id: string }>(t, `SELECT message_id FROM ntf_execution_detail WHERE job_id = $1 AND detail = 'Message created'`, [job.id]);
      const [{ message_id: sent }] = await rows<{ message_id: string }>(t, `SELECT message_id FROM ntf_execution_detail WHERE job_id = $1 AND detail = 'Message sent'`, [job.id]);
      expect(created).toBe(message.id);
      expect(sent).toBe(message.id);
      const [{ attempts }] = await rows<{ attempts: number }>(t, 'SELECT attempts FROM ntf_job WHERE id = $1', [job.id]);
      expect(attempts).toBe(1);
    });

    it('waits at least the vendor’s Retry-After before retrying a 429', async () => {
      const { env, hook } = await emailSetup();
      receiver.respond(hook, (_request, index) => (index === 0 ? { status: 429, body: 'slow down', headers: { 'retry-after': '2' } } : { status: 200 }));

      const { job } = await delivered(await send(env));
      const [first, second] = receiver.requestsTo(hook);

      expect(job.status).toBe('completed');
      expect(second.receivedAt.getTime() - first.receivedAt.getTime()).toBeGreaterThanOrEqual(1900);
    });

    it('retries a network failure (nothing listening) and a timeout, and fails after retryLimit retries', async () => {
      const closed = await WebhookReceiver.start();
      const deadUrl = closed.url('/gone');
      await closed.close();
      const { env } = await emailSetup(deadUrl);

      const { job, message } = await delivered(await send(env));

      expect(job.status).toBe('failed');
      expect(job.details.filter((d) => d.detail === 'Provider error, the send will be retried')).toHaveLength(2);
      const failed = job.details[job.details.length - 1];
      expect(failed).toMatchObject({ detail: 'Unexpected provider error', status: 'Failed', isRetry: true });
      expect(failed.raw).toMatchObject({ attempts: 3, error: expect.stringContaining('Webhook request failed') });
      expect(message).toMatchObject({ status: 'error', error_id: 'network_error', error_text: expect.stringContaining('Webhook request failed') });

      const slow = await emailSetup();
      receiver.respond(slow.hook, (_request, index) => (index === 0 ? { delayMs: 1500 } : { status: 200, body: { id: 'after-timeout' } }));
      const retried = await delivered(await send(slow.env));
      expect(retried.job.status).toBe('completed');
      expect(retried.job.details.find((d) => d.status === 'Warning')?.raw).toMatchObject({ error: 'Webhook did not answer within 1000 ms' });
      expect(retried.message).toMatchObject({ status: 'sent', provider_message_id: 'after-timeout' });
    });
  });

  describe('permanent failures', () => {
    it('does not retry a 400: one request, job failed, message in error with the vendor answer in raw', async () => {
      const { env, hook } = await emailSetup();
      receiver.respond(hook, { status: 400, body: { message: 'bad address' } });

      const { job, message } = await delivered(await send(env));

      expect(receiver.requestsTo(hook)).toHaveLength(1);
      expect(job.status).toBe('failed');
      expect(job.details.some((d) => d.isRetry)).toBe(false);
      expect(job.details[job.details.length - 1]).toMatchObject({
        detail: 'Unexpected provider error',
        status: 'Failed',
        raw: { error: 'Webhook responded with 400', response: { status: 400, body: { message: 'bad address' } } },
      });
      expect(message).toMatchObject({ status: 'error', error_id: 'unexpected_provider_error', error_text: 'Webhook responded with 400' });
    });

    it('redacts credential values a vendor echoes back, in the log, the job error and the message', async () => {
      const { env, hook } = await emailSetup();
      receiver.respond(hook, { status: 401, body: { message: `invalid signing key ${SECRET}`, [SECRET]: true } });

      const { job, message } = await delivered(await send(env));
      const stored = await rows<{ raw: string | null }>(t, 'SELECT raw FROM ntf_execution_detail WHERE job_id = $1', [job.id]);
      const [jobRow] = await rows<{ error: unknown }>(t, 'SELECT error FROM ntf_job WHERE id = $1', [job.id]);

      expect(JSON.stringify(stored)).not.toContain(SECRET);
      expect(JSON.stringify(jobRow.error)).not.toContain(SECRET);
      expect(JSON.stringify(message)).not.toContain(SECRET);
      expect(job.details[job.details.length - 1].raw).toEqual({
        error: 'Webhook responded with 401',
        response: { status: 401, body: { message: 'invalid signing key [redacted]', '[redacted]': true } },
      });
    });
  });

  describe('a host provider', () => {
    it('is selected by its providerId, gets its dependencies and decrypted credentials, and its id lands on the message', async () => {
      const env = await createEnvironment(t.moduleRef, 'host provider');
      await createIntegration(t.moduleRef, env.environmentId, {
        name: 'Ledger',
        providerId: 'mandrill',
        channel: 'email',
        credentials: { apiKey: 'ledger-key-123456', from: 'ops@example.com' },
      });
      await createWorkflow(t.app, env.environmentId, {
        identifier: 'receipt',
        name: 'Receipt',
        steps: [{ type: 'email', template: { subject: 'Receipt {{ payload.n }}', content: '<p>Thanks</p>' } }],
      });
      const ledger = t.app.get(OutboxLedger);
      const before = ledger.sent.length;

      const ok = await delivered(await send(env));
      const bounced = await delivered(await send(env, 'bounce@example.com'));

      expect(t.app.get(DeliveryProviderRegistry).get('mandrill')).toBeInstanceOf(LedgerEmailProvider);
      expect(ledger.sent.slice(before)).toEqual([
        { jobId: ok.job.id, to: 'ann@example.com', subject: 'Receipt 1', apiKey: 'ledger-key-123456' },
        { jobId: bounced.job.id, to: 'bounce@example.com', subject: 'Receipt 1', apiKey: 'ledger-key-123456' },
      ]);
      expect(ok.job.status).toBe('completed');
      expect(ok.message).toMatchObject({ status: 'sent', provider_id: 'mandrill', provider_message_id: `ledger-${before + 1}` });
      expect(bounced.job.status).toBe('failed');
      expect(bounced.message).toMatchObject({ status: 'error', error_id: 'hard-bounce', error_text: 'Mandrill rejected the recipient' });
    });
  });

  describe('integration credentials', () => {
    it('refuses an integration missing a required credential of its provider, naming every missing field', async () => {
      const env = await createEnvironment(t.moduleRef, 'credentials');
      const providers = t.app.get(DeliveryProviderRegistry).list().filter((provider) => provider.requiredCredentials.length > 0);
      expect(providers.map((p) => p.providerId)).toContain('mandrill');

      for (const provider of providers) {
        const attempt = t.app.get(IntegrationsService).create(env.environmentId, { name: provider.providerId, providerId: provider.providerId, channel: provider.channel, credentials: {} });
        await expect(attempt).rejects.toBeInstanceOf(RequestValidationException);
        const error = (await attempt.catch((e: unknown) => e)) as RequestValidationException;
        expect(error.errors.credentials.messages).toEqual([`credentials for ${provider.providerId} are missing: ${provider.requiredCredentials.join(', ')}`]);
        expect(error.errors.credentials.value).toEqual([...provider.requiredCredentials]);
      }
    });

    it('refuses a provider on a channel it does not deliver on, and accepts complete credentials', async () => {
      const env = await createEnvironment(t.moduleRef, 'credentials');
      const service = t.app.get(IntegrationsService);

      const wrong = await service.create(env.environmentId, { name: 'x', providerId: 'mandrill', channel: 'sms', credentials: { apiKey: 'k', from: 'a@b.c' } }).catch((e: unknown) => e);
      expect((wrong as RequestValidationException).errors).toEqual({
        channel: { messages: ['providerId "mandrill" delivers on the email channel, not sms'], value: 'sms' },
      });
      const partial = await service.create(env.environmentId, { name: 'x', providerId: 'mandrill', channel: 'email', credentials: { apiKey: 'k', from: '  ' } }).catch((e: unknown) => e);
      expect((partial as RequestValidationException).errors.credentials.value).toEqual(['from']);
      await expect(service.create(env.environmentId, { name: 'x', providerId: 'mandrill', channel: 'email', credentials: { apiKey: 'k', from: 'a@b.c' } })).resolves.toMatchObject({
        providerId: 'mandrill',
      });
    });
  });
});
