import { TenantsService } from '../../lib';
import { useTestApp } from '../fixtures/app';
import { createEnvironment, type TestEnvironment } from '../fixtures/factories';
import { createWorkflow } from '../fixtures/notification.factory';
import { eventually, FAST_WORKER, rows, triggerBulk } from '../fixtures/pipeline';

type App = ReturnType<typeof useTestApp>;

/** Every job of a transaction in chain order, with its status and execution log. */
export async function logOf(t: App, transactionId: string) {
  const jobs = await rows<{ id: string; type: string; status: string }>(t, 'SELECT id, type, status FROM ntf_job WHERE transaction_id = $1 ORDER BY created_at, id', [transactionId]);
  const details = await rows<{ job_id: string; detail: string }>(t, 'SELECT job_id, detail FROM ntf_execution_detail WHERE transaction_id = $1 ORDER BY created_at, id', [transactionId]);
  return jobs.map((job) => ({ type: job.type, status: job.status, details: details.filter((d) => d.job_id === job.id).map((d) => d.detail) }));
}

describe('the trigger pipeline: in-app delivery', () => {
  const t = useTestApp('fastify', { options: FAST_WORKER });
  let env: TestEnvironment;

  beforeAll(async () => {
    env = await createEnvironment(t.moduleRef);
    await t.app.get(TenantsService).create(env.environmentId, { identifier: 'acme', name: 'Acme' });
    await createWorkflow(t.app, env.environmentId, {
      identifier: 'welcome',
      name: 'Welcome',
      steps: [
        {
          type: 'in_app',
          template: {
            content: 'Hi {{ subscriber.firstName }}, order {{ payload.order.id }} ({{ tenant.name }})',
            cta: { type: 'redirect', data: { url: '/orders/{{ payload.order.id }}' } },
          },
        },
      ],
    });
  });

  it('delivers one rendered in-app message per recipient, with the reference execution log', async () => {
    const [result] = await triggerBulk(t, env, [
      { name: 'welcome', to: [{ subscriberId: 'ann', firstName: 'Ann' }, 'bob'], payload: { order: { id: 42 } }, tenant: 'acme' },
    ]);
    expect(result.status).toBe('processed');
    const messages = await eventually(async () => {
      const found = await rows<{ content: string; cta: unknown; status: string; channel: string; payload: unknown; subscriber_id: string }>(
        t,
        'SELECT content, cta, status, channel, payload, subscriber_id FROM ntf_message WHERE transaction_id = $1 ORDER BY content',
        [result.transactionId],
      );
      return found.length === 2 && found;
    });
    expect(messages.map((m) => m.content)).toEqual(['Hi , order 42 (Acme)', 'Hi Ann, order 42 (Acme)']);
    expect(messages[0]).toMatchObject({ status: 'sent', channel: 'in_app', cta: { type: 'redirect', data: { url: '/orders/42' } }, payload: { order: { id: 42 } } });
    const log = await eventually(async () => {
      const chain = await logOf(t, result.transactionId!);
      return chain.every((job) => job.status === 'completed') && chain;
    });
    expect(log.slice(0, 2)).toEqual([
      { type: 'trigger', status: 'completed', details: ['Step created', 'Step queued', 'Start sending message'] },
      { type: 'in_app', status: 'completed', details: ['Step created', 'Step queued', 'Start sending message', 'Message created', 'Message sent'] },
    ]);
  });

  it('renders the actor from its stored subscriber when the trigger names it by id', async () => {
    await createWorkflow(t.app, env.environmentId, { identifier: 'mention', name: 'Mention', steps: [{ type: 'in_app', template: { content: '{{ actor.firstName }} mentioned you' } }] });
    await triggerBulk(t, env, [{ name: 'welcome', to: { subscriberId: 'boss', firstName: 'Grace' }, payload: { order: { id: 1 } } }]);
    const [result] = await triggerBulk(t, env, [{ name: 'mention', to: 'ann', actor: 'boss' }]);
    const [message] = await eventually(async () => {
      const found = await rows<{ content: string }>(t, 'SELECT content FROM ntf_message WHERE transaction_id = $1', [result.transactionId]);
      return found.length === 1 && found;
    });
    expect(message.content).toBe('Grace mentioned you');
  });
});
