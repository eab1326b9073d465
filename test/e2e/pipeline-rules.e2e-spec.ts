import { createHmac } from 'node:crypto';
import { type FieldFilterPart, type StepDefinition, type StepFilter, TenantsService } from '../../lib';
import { NotificationsQueue } from '../../lib/delivery/notifications-queue';
import { useTestApp } from '../fixtures/app';
import { deliveredLog, finishedRun, logLines, messagesOf, onlyJob, triggerOne } from '../fixtures/delivery-run';
import { createEnvironment, createIntegration, createSubscriber, type TestEnvironment } from '../fixtures/factories';
import { createWorkflow } from '../fixtures/notification.factory';
import { eventually, FAST_WORKER, rows } from '../fixtures/pipeline';
import { WebhookReceiver } from '../fixtures/webhook-receiver';

/**
 * The rules the worker applies while running a workflow: shouldStopOnFail, integration selection,
 * step filters, workflow preferences, templates, tenant isolation and harmless redelivery. Every case
 * goes through the real pipeline: bulk trigger over HTTP, the in-process worker, PostgreSQL, pg-boss,
 * and webhook providers posting to a local receiver.
 */

/** A filter group of one condition (or several joined by `value`). */
function group(children: FieldFilterPart[], value: 'AND' | 'OR' = 'AND', isNegated = false): StepFilter {
  return { isNegated, type: 'GROUP', value, children };
}

/** One condition. */
function when(on: FieldFilterPart['on'], field: string, operator: FieldFilterPart['operator'], value: string): FieldFilterPart {
  return { on, field, operator, value };
}

describe('the trigger pipeline: run-time rules', () => {
  const t = useTestApp('fastify', { options: FAST_WORKER });
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver.close();
  });

  /** An environment with an email-webhook integration posting to `path`. */
  async function emailEnvironment(name: string, path: string, secretKey?: string): Promise<TestEnvironment> {
    const env = await createEnvironment(t.moduleRef, name);
    await createIntegration(t.moduleRef, env.environmentId, {
      name: 'Email hook',
      providerId: 'email-webhook',
      channel: 'email',
      credentials: { webhookUrl: receiver.url(path), ...(secretKey && { secretKey }) },
    });
    return env;
  }

  describe('shouldStopOnFail', () => {
    it.each([
      [true, 'canceled', []],
      [false, 'completed', ['after the email']],
    ])('a failing email step with shouldStopOnFail %s: the in-app step after it ends %s', async (shouldStopOnFail, inAppStatus, contents) => {
      const env = await emailEnvironment(`stop-on-fail ${shouldStopOnFail}`, '/stop');
      await createWorkflow(t.app, env.environmentId, {
        identifier: 'stop-or-go',
        name: 'Stop or go',
        steps: [
          // The subscriber has no email: this step fails.
          { type: 'email', shouldStopOnFail, template: { subject: 's', content: 'c' } },
          { type: 'in_app', template: { content: 'after the email' } },
        ],
      });
      const transactionId = await triggerOne(t, env, { name: 'stop-or-go', to: { subscriberId: 'no-email' } });
      const run = await finishedRun(t, transactionId);

      expect(onlyJob(run, 'email')).toMatchObject({ status: 'failed', error: { message: 'Subscriber missing recipient details' } });
      const inApp = onlyJob(run, 'in_app');
      expect(inApp.status).toBe(inAppStatus);
      if (shouldStopOnFail) {
        // Never queued, never run.
        expect(inApp.details.map((d) => d.detail)).toEqual(['Step created']);
      } else {
        expect(inApp.details.map((d) => d.detail)).toEqual(['Step created', 'Step queued', 'Start sending message', 'Message created', 'Message sent']);
      }
      expect((await messagesOf(t, transactionId)).map((m) => m.content)).toEqual(contents);
    });
  });

  describe('integration selection', () => {
    let env: TestEnvironment;

    beforeAll(async () => {
      env = await createEnvironment(t.moduleRef, 'integration selection');
      const integration = (identifier: string, channel: 'email' | 'sms', extra: Parameters<typeof createIntegration>[2] = {}) =>
        createIntegration(t.moduleRef, env.environmentId, {
          name: identifier,
          identifier,
          providerId: channel === 'email' ? 'email-webhook' : 'generic-sms',
          channel,
          credentials: { webhookUrl: receiver.url(`/pick/${identifier}`) },
          ...extra,
        });
      await integration('email-older', 'email');
      await integration('email-primary', 'email', { primary: true });
      await integration('email-named', 'email');
      await integration('email-off', 'email', { active: false, priority: 100 });
      // SMS: the primary only for gold subscribers in the EU; an inactive one ranked above the fallback.
      await integration('sms-eu-gold', 'sms', {
        primary: true,
        conditions: [group([when('payload', 'region', 'EQUAL', 'eu'), when('subscriber', 'data.tier', 'EQUAL', 'gold')])],
      });
      await integration('sms-off', 'sms', { active: false, priority: 100 });
      await integration('sms-fallback', 'sms');
      await createWorkflow(t.app, env.environmentId, {
        identifier: 'pick',
        name: 'Pick an integration',
        steps: [
          { type: 'email', name: 'named', integrationIdentifier: 'email-named', template: { subject: 'named', content: 'named' } },
          { type: 'email', name: 'default', template: { subject: 'default', content: 'default' } },
          { type: 'email', name: 'inactive', integrationIdentifier: 'email-off', template: { subject: 'inactive', content: 'inactive' } },
          { type: 'sms', template: { content: 'sms' } },
        ],
      });
    });

    /** Which integration (by the receiver path) each step's message went to, in step order. */
    async function picks(transactionId: string) {
      const run = await finishedRun(t, transactionId);
      const messages = await messagesOf(t, transactionId);
      return run
        .filter((job) => job.type !== 'trigger')
        .map((job) => {
          const selected = job.details.find((d) => d.detail === 'Integration instance selected');
          return {
            status: job.status,
            integration: (selected?.raw as { identifier?: string } | undefined)?.identifier ?? null,
            message: messages.find((m) => m.job_id === job.id)?.status ?? null,
            last: job.details.at(-1)?.detail,
          };
        });
    }

    it("the step's integrationIdentifier wins over the primary; otherwise the primary; an inactive integration is never used", async () => {
      const transactionId = await triggerOne(t, env, {
        name: 'pick',
        to: { subscriberId: 'ann', email: 'ann@example.com', phone: '+15550003333', data: { tier: 'gold' } },
        payload: { region: 'eu' },
      });
      expect(await picks(transactionId)).toEqual([
        { status: 'completed', integration: 'email-named', message: 'sent', last: 'Message sent' },
        { status: 'completed', integration: 'email-primary', message: 'sent', last: 'Message sent' },
        { status: 'failed', integration: null, message: null, last: 'Subscriber does not have an active integration' },
        { status: 'completed', integration: 'sms-eu-gold', message: 'sent', last: 'Message sent' },
      ]);
      const requests = receiver.requests.filter((r) => (r.body as { transactionId?: string } | undefined)?.transactionId === transactionId);
      expect(requests.map((r) => r.path).sort()).toEqual(['/pick/email-named', '/pick/email-primary', '/pick/sms-eu-gold']);
    });

    it.each([
      ['a payload field', { region: 'us' }, 'gold'],
      ['a subscriber field', { region: 'eu' }, 'basic'],
    ])('integration conditions: a primary whose conditions fail on %s is skipped for the next active one', async (_what, payload, tier) => {
      const transactionId = await triggerOne(t, env, {
        name: 'pick',
        to: { subscriberId: `sub-${tier}-${String(payload.region)}`, email: 'x@example.com', phone: '+15550004444', data: { tier } },
        payload,
      });
      const sms = (await picks(transactionId)).at(-1);
      expect(sms).toEqual({ status: 'completed', integration: 'sms-fallback', message: 'sent', last: 'Message sent' });
      const [message] = (await messagesOf(t, transactionId)).filter((m) => m.channel === 'sms');
      expect(message.provider_id).toBe('generic-sms');
    });
  });

  describe('step filters', () => {
    const payload = { country: 'DE', amount: 50, items: ['x', 'y'], shippedAt: '2024-05-01T10:00:00Z', name: 'Order_42', nested: { flag: true } };
    const subscriber = { subscriberId: 'filtered-ann', firstName: 'Ann', email: 'ann@example.com', data: { tier: 'gold', tags: ['a', 'b', 'c'], age: 30 } };
    /** [label, filters, runs?]: one in_app step each, whose content is its label. */
    const cases: Array<[string, StepFilter[], boolean]> = [
      ['EQUAL payload', [group([when('payload', 'country', 'EQUAL', 'DE')])], true],
      ['EQUAL payload, other value', [group([when('payload', 'country', 'EQUAL', 'FR')])], false],
      ['EQUAL nested payload', [group([when('payload', 'nested.flag', 'EQUAL', 'true')])], true],
      ['NOT_EQUAL subscriber', [group([when('subscriber', 'firstName', 'NOT_EQUAL', 'Bob')])], true],
      ['NOT_EQUAL subscriber, same value', [group([when('subscriber', 'firstName', 'NOT_EQUAL', 'Ann')])], false],
      ['LARGER', [group([when('payload', 'amount', 'LARGER', '40')])], true],
      ['SMALLER', [group([when('payload', 'amount', 'SMALLER', '40')])], false],
      ['LARGER_EQUAL', [group([when('payload', 'amount', 'LARGER_EQUAL', '50')])], true],
      ['SMALLER_EQUAL subscriber', [group([when('subscriber', 'data.age', 'SMALLER_EQUAL', '29')])], false],
      ['IN', [group([when('payload', 'country', 'IN', 'DE,FR')])], true],
      ['NOT_IN', [group([when('payload', 'country', 'NOT_IN', 'DE,FR')])], false],
      ['ALL_IN subscriber', [group([when('subscriber', 'data.tags', 'ALL_IN', 'a,b')])], true],
      ['ALL_IN subscriber, one missing', [group([when('subscriber', 'data.tags', 'ALL_IN', 'a,z')])], false],
      ['ANY_IN', [group([when('payload', 'items', 'ANY_IN', 'z,y')])], true],
      ['BETWEEN numbers', [group([when('payload', 'amount', 'BETWEEN', '10,50')])], true],
      ['BETWEEN dates', [group([when('payload', 'shippedAt', 'BETWEEN', '2024-06-01,2024-07-01')])], false],
      ['NOT_BETWEEN subscriber', [group([when('subscriber', 'data.age', 'NOT_BETWEEN', '40,60')])], true],
      ['LIKE subscriber', [group([when('subscriber', 'email', 'LIKE', '%@example.com')])], true],
      ['NOT_LIKE', [group([when('payload', 'name', 'NOT_LIKE', 'order')])], false],
      ['AND, one fails', [group([when('payload', 'country', 'EQUAL', 'DE'), when('payload', 'amount', 'LARGER', '100')])], false],
      ['OR, one passes', [group([when('payload', 'country', 'EQUAL', 'DE'), when('payload', 'amount', 'LARGER', '100')], 'OR')], true],
      ['isNegated', [group([when('subscriber', 'data.tier', 'EQUAL', 'gold')], 'AND', true)], false],
      ['every group must pass', [group([when('payload', 'country', 'EQUAL', 'DE')]), group([when('payload', 'country', 'EQUAL', 'FR')], 'AND', true)], true],
      ['no filters', [], true],
    ];

    it('runs the steps whose filters pass, cancels the others with their detail, and goes on to the next step', async () => {
      const env = await createEnvironment(t.moduleRef, 'filters');
      const steps: StepDefinition[] = cases.map(([label, filters]) => ({ type: 'in_app', name: label, filters, template: { content: label } }));
      await createWorkflow(t.app, env.environmentId, { identifier: 'filtered', name: 'Filtered', steps });
      const transactionId = await triggerOne(t, env, { name: 'filtered', to: subscriber, payload });
      const run = await finishedRun(t, transactionId, 30_000);
      const messages = await messagesOf(t, transactionId);

      const jobs = run.filter((job) => job.type === 'in_app');
      expect(jobs).toHaveLength(cases.length);
      const outcome = cases.map(([label], index) => [label, jobs[index].status]);
      expect(outcome).toEqual(cases.map(([label, , runs]) => [label, runs ? 'completed' : 'canceled']));
      expect(messages.map((m) => m.content).sort()).toEqual(cases.filter(([, , runs]) => runs).map(([label]) => label).sort());

      for (const [index, [label, filters, runs]] of cases.entries()) {
        if (runs) continue;
        const job = jobs[index];
        expect([label, logLines(job)]).toEqual([
          label,
          [
            { detail: 'Step created', status: 'Pending', providerId: null },
            { detail: 'Step queued', status: 'Pending', providerId: null },
            { detail: 'Step was filtered based on steps filters', status: 'Success', providerId: null },
          ],
        ]);
        expect(job.details.at(-1)?.raw).toMatchObject({ filters, evaluation: { passed: false } });
        expect(messages.some((m) => m.job_id === job.id)).toBe(false);
      }
    });
  });

  describe('workflow preferences', () => {
    it.each([
      [false, 'canceled'],
      [true, 'completed'],
    ])('preferenceSettings {email: false} with critical %s: the email step ends %s, in-app is delivered', async (critical, emailStatus) => {
      const path = `/prefs-${critical}`;
      const env = await emailEnvironment(`preferences ${critical}`, path);
      await createWorkflow(t.app, env.environmentId, {
        identifier: 'quiet',
        name: 'Quiet',
        critical,
        preferenceSettings: { email: false },
        steps: [
          { type: 'email', template: { subject: 'Hi', content: 'Hello' } },
          { type: 'in_app', template: { content: 'in the feed' } },
        ],
      });
      const transactionId = await triggerOne(t, env, { name: 'quiet', to: { subscriberId: 'ann', email: 'ann@example.com' } });
      const run = await finishedRun(t, transactionId);
      const email = onlyJob(run, 'email');
      expect(email.status).toBe(emailStatus);
      if (critical) {
        expect(logLines(email)).toEqual(deliveredLog('email-webhook'));
        expect(receiver.requestsTo(path)).toHaveLength(1);
      } else {
        expect(email.details.map((d) => [d.detail, d.status])).toEqual([
          ['Step created', 'Pending'],
          ['Step queued', 'Pending'],
          ['Step filtered by workflow preferences', 'Success'],
        ]);
        expect(receiver.requestsTo(path)).toEqual([]);
      }
      expect(onlyJob(run, 'in_app')).toMatchObject({ status: 'completed', providerId: 'novu', error: null });
      const messages = await messagesOf(t, transactionId);
      expect(messages.map((m) => m.channel).sort()).toEqual(critical ? ['email', 'in_app'] : ['in_app']);
    });
  });

  describe('templates', () => {
    it('render subscriber, nested payload, tenant and actor fields in in-app and email messages', async () => {
      const env = await emailEnvironment('templates', '/templates');
      await t.app.get(TenantsService).create(env.environmentId, { identifier: 'acme', name: 'Acme', data: { color: 'blue' } });
      const text = [
        'Hi {{ subscriber.firstName }} {{ subscriber.lastName }} ({{ subscriber.data.plan }}, {{ subscriber.subscriberId }})',
        'order {{ payload.order.id }}: {{ payload.order.items[0].sku }} and {{ payload.order.items.size }} item(s)',
        '{{ tenant.identifier }}/{{ tenant.name }}/{{ tenant.data.color }}',
        'from {{ actor.firstName }} ({{ actor.subscriberId }})',
        'missing: [{{ payload.nope.deeper }}]',
      ].join(' | ');
      await createWorkflow(t.app, env.environmentId, {
        identifier: 'rich',
        name: 'Rich',
        steps: [
          { type: 'in_app', template: { subject: '{{ tenant.name }} news', content: text, cta: { type: 'redirect', data: { url: '/orders/{{ payload.order.id }}' } } } },
          { type: 'email', template: { subject: '{{ tenant.name }}: order {{ payload.order.id }}', content: text } },
        ],
      });
      const transactionId = await triggerOne(t, env, {
        name: 'rich',
        to: { subscriberId: 'ann', firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com', data: { plan: 'pro' } },
        payload: { order: { id: 'ORD-9', items: [{ sku: 'SKU-1' }, { sku: 'SKU-2' }] } },
        tenant: 'acme',
        actor: { subscriberId: 'boss', firstName: 'Bea' },
      });
      await finishedRun(t, transactionId);
      const expected = 'Hi Ann Lee (pro, ann) | order ORD-9: SKU-1 and 2 item(s) | acme/Acme/blue | from Bea (boss) | missing: []';
      const messages = await messagesOf(t, transactionId);
      expect(messages.find((m) => m.channel === 'in_app')).toMatchObject({
        subject: 'Acme news',
        content: expected,
        cta: { type: 'redirect', data: { url: '/orders/ORD-9' } },
        status: 'sent',
      });
      expect(messages.find((m) => m.channel === 'email')).toMatchObject({ subject: 'Acme: order ORD-9', content: expected, status: 'sent' });
      const [request] = receiver.requestsTo('/templates');
      expect(request.body).toMatchObject({ subject: 'Acme: order ORD-9', content: expected });
    });
  });

  describe('tenant isolation', () => {
    it("each environment's run uses only its own integration and its own subscriber data", async () => {
      const a = await emailEnvironment('tenant A', '/env-a', 'secret-a');
      const b = await emailEnvironment('tenant B', '/env-b', 'secret-b');
      for (const [env, letter] of [
        [a, 'a'],
        [b, 'b'],
      ] as const) {
        await createSubscriber(t.moduleRef, env.environmentId, { subscriberId: 'shared-id', firstName: `Name ${letter}`, email: `${letter}@example.com` });
        await createWorkflow(t.app, env.environmentId, {
          identifier: 'same-workflow',
          name: 'Same workflow',
          steps: [
            { type: 'email', template: { subject: `from ${letter}`, content: 'Hi {{ subscriber.firstName }}' } },
            { type: 'in_app', template: { content: `${letter}: {{ subscriber.email }}` } },
          ],
        });
      }
      // Both at once, so one worker batch may well carry both environments' jobs.
      const [txA, txB] = await Promise.all([
        triggerOne(t, a, { name: 'same-workflow', to: 'shared-id', transactionId: 'txn-shared-run' }),
        triggerOne(t, b, { name: 'same-workflow', to: 'shared-id', transactionId: 'txn-shared-run' }),
      ]);
      expect([txA, txB]).toEqual(['txn-shared-run', 'txn-shared-run']);
      const requests = await eventually(async () => receiver.requestsTo('/env-a').length + receiver.requestsTo('/env-b').length >= 2 && receiver.requests);
      for (const [env, letter] of [
        [a, 'a'],
        [b, 'b'],
      ] as const) {
        const received = requests.filter((r) => r.path === `/env-${letter}`);
        expect(received).toHaveLength(1);
        expect(received[0].body).toMatchObject({ environmentId: env.environmentId, to: `${letter}@example.com`, subject: `from ${letter}`, content: `Hi Name ${letter}` });
        expect(received[0].headers['x-signature']).toBe(createHmac('sha256', `secret-${letter}`).update(received[0].rawBody).digest('hex'));
        const messages = await eventually(async () => {
          const found = await rows<{ channel: string; content: string; email: string | null; status: string }>(
            t,
            'SELECT channel, content, email, status FROM ntf_message WHERE environment_id = $1 AND transaction_id = $2 ORDER BY channel',
            [env.environmentId, 'txn-shared-run'],
          );
          return found.length === 2 && found;
        });
        expect(messages).toEqual([
          { channel: 'email', content: `Hi Name ${letter}`, email: `${letter}@example.com`, status: 'sent' },
          { channel: 'in_app', content: `${letter}: ${letter}@example.com`, email: null, status: 'sent' },
        ]);
      }
    });
  });

  describe('redelivery', () => {
    it('a duplicate queue entry for a completed job sends nothing and writes nothing', async () => {
      const env = await emailEnvironment('redelivery', '/redelivery');
      await createWorkflow(t.app, env.environmentId, {
        identifier: 'once',
        name: 'Once',
        steps: [
          { type: 'in_app', template: { content: 'once' } },
          { type: 'email', template: { subject: 'once', content: 'once' } },
        ],
      });
      const transactionId = await triggerOne(t, env, { name: 'once', to: { subscriberId: 'ann', email: 'ann@example.com' } });
      const run = await finishedRun(t, transactionId);
      expect(run.map((job) => job.status)).toEqual(['completed', 'completed', 'completed']);
      await eventually(async () => receiver.requestsTo('/redelivery').length === 1);
      const messagesBefore = await messagesOf(t, transactionId);
      const detailsBefore = await rows<{ id: string }>(t, 'SELECT id FROM ntf_execution_detail WHERE transaction_id = $1 ORDER BY id', [transactionId]);
      expect(messagesBefore).toHaveLength(2);

      // The trigger job's entry, as the intake wrote it: the shape the duplicates copy.
      const [original] = await rows<{ data: unknown }>(t, `SELECT data FROM pgboss.job WHERE name = 'ntf_jobs' AND data->>'jobId' = $1`, [run[0].id]);
      expect(original.data).toEqual({ environmentId: env.environmentId, jobId: run[0].id });
      const jobIds = run.map((job) => job.id);
      const entries = () => rows<{ state: string }>(t, `SELECT state FROM pgboss.job WHERE name = 'ntf_jobs' AND data->>'jobId' = ANY($1::text[])`, [jobIds]);
      const settled = async (count: number) => {
        const found = await entries();
        return found.length === count && found.every((entry) => entry.state === 'completed');
      };
      const originals = (await entries()).length;
      await eventually(() => settled(originals), 10_000, 'the original queue entries to complete');

      await t.app.get(NotificationsQueue).enqueue(run.map((job) => ({ environmentId: env.environmentId, jobId: job.id })));
      // Every duplicate is handed out to the worker and completed.
      await eventually(() => settled(originals + jobIds.length), 10_000, 'the duplicate queue entries to complete');

      expect(await messagesOf(t, transactionId)).toEqual(messagesBefore);
      expect(await rows(t, 'SELECT id FROM ntf_execution_detail WHERE transaction_id = $1 ORDER BY id', [transactionId])).toEqual(detailsBefore);
      expect((await finishedRun(t, transactionId)).map((job) => job.status)).toEqual(['completed', 'completed', 'completed']);
      expect(receiver.requestsTo('/redelivery')).toHaveLength(1);
    });

    it('duplicate entries of a waiting job, due together, run it once', async () => {
      const env = await emailEnvironment('duplicates', '/duplicates');
      await createWorkflow(t.app, env.environmentId, {
        identifier: 'wait-then-mail',
        name: 'Wait then mail',
        steps: [
          { type: 'delay', metadata: { type: 'regular', amount: 1, unit: 'seconds' } },
          { type: 'email', template: { subject: 'later', content: 'later' } },
        ],
      });
      const transactionId = await triggerOne(t, env, { name: 'wait-then-mail', to: { subscriberId: 'ann', email: 'ann@example.com' } });
      const delay = await eventually(async () => {
        const [job] = await rows<{ id: string; status: string }>(t, `SELECT id, status FROM ntf_job WHERE transaction_id = $1 AND type = 'delay'`, [transactionId]);
        return job?.status === 'delayed' && job;
      });
      // Two more entries due with the original one, so one poll most likely hands out all three in
      // one batch (where each used to claim the job again: three "Delay is finished", and a channel
      // job would have been sent three times).
      const [entry] = await rows<{ start_after: string | Date }>(t, `SELECT start_after FROM pgboss.job WHERE name = 'ntf_jobs' AND data->>'jobId' = $1`, [delay.id]);
      const startAfter = new Date(entry.start_after);
      await t.app.get(NotificationsQueue).enqueue([1, 2].map(() => ({ environmentId: env.environmentId, jobId: delay.id, startAfter })));

      const run = await finishedRun(t, transactionId);
      expect(onlyJob(run, 'delay').details.map((d) => d.detail)).toEqual(['Step created', 'Step delayed', 'Step queued', 'Delay is finished']);
      expect(logLines(onlyJob(run, 'email'))).toEqual(deliveredLog('email-webhook'));
      expect(await messagesOf(t, transactionId)).toHaveLength(1);
      expect(receiver.requestsTo('/duplicates')).toHaveLength(1);
    });
  });
});
