import { Injectable } from '@nestjs/common';
import { WorkflowsService, type WorkflowDefinition } from '../../lib';
import { useTestApp } from '../fixtures/app';
import { createEnvironment, type TestEnvironment } from '../fixtures/factories';
import { detailLines, detailOf, jobOf, messagesOf, settledChain, statuses } from '../fixtures/job-log';
import { createWorkflow } from '../fixtures/notification.factory';
import { FAST_WORKER, triggerBulk, type TestEvent } from '../fixtures/pipeline';
import { WebhookReceiver } from '../fixtures/webhook-receiver';

/** Triggers events and returns their transaction ids (all must be `processed`). */
async function triggerAll(t: ReturnType<typeof useTestApp>, env: TestEnvironment, events: TestEvent[]): Promise<string[]> {
  const results = await triggerBulk(t, env, events);
  expect(results.map((r) => r.status)).toEqual(events.map(() => 'processed'));
  return results.map((r) => r.transactionId!);
}


describe('the trigger pipeline: throttle steps', () => {
  const t = useTestApp('fastify', { options: FAST_WORKER });
  let env: TestEnvironment;

  beforeAll(async () => {
    env = await createEnvironment(t.moduleRef);
    const inApp = { type: 'in_app', template: { content: 'Through: {{ payload.n }}' } } as const;
    await createWorkflow(t.app, env.environmentId, {
      identifier: 'throttled',
      name: 'Throttled',
      steps: [{ type: 'throttle', metadata: { threshold: 2, amount: 1, unit: 'minutes' } }, inApp],
    });
    await createWorkflow(t.app, env.environmentId, {
      identifier: 'throttled-by-key',
      name: 'Throttled by key',
      steps: [{ type: 'throttle', metadata: { threshold: 1, amount: 1, unit: 'minutes', throttleKey: 'channel.id' } }, inApp],
    });
  });

  it('lets two runs a minute through per subscriber; the others are skipped with their later steps', async () => {
    // One request: the runs share batches, so runs of the same batch must count against each other.
    const transactionIds = await triggerAll(t, env, [
      { name: 'throttled', to: 'th-ann', payload: { n: 'ann-1' } },
      { name: 'throttled', to: 'th-ann', payload: { n: 'ann-2' } },
      { name: 'throttled', to: 'th-bob', payload: { n: 'bob-1' } },
      { name: 'throttled', to: 'th-ann', payload: { n: 'ann-3' } },
      { name: 'throttled', to: 'th-ann', payload: { n: 'ann-4' } },
    ]);
    const chains = await Promise.all(transactionIds.map((id) => settledChain(t, id)));
    const ann = chains.filter((_, i) => i !== 2);
    const passed = ann.filter((chain) => jobOf(chain, 'throttle').status === 'completed');
    const throttled = ann.filter((chain) => jobOf(chain, 'throttle').status === 'skipped');
    expect([passed.length, throttled.length]).toEqual([2, 2]);

    for (const chain of passed) {
      expect(statuses(chain)).toEqual([
        ['trigger', 'completed'],
        ['throttle', 'completed'],
        ['in_app', 'completed'],
      ]);
      const throttle = jobOf(chain, 'throttle');
      expect(detailLines(throttle)).toEqual([
        ['Step created', 'Pending'],
        ['Step queued', 'Pending'],
        ['Step passed the throttle', 'Success'],
      ]);
      expect(detailOf(throttle, 'Step passed the throttle').raw).toMatchObject({ threshold: 2, window: { amount: 1, unit: 'minutes' } });
    }
    for (const chain of throttled) {
      expect(statuses(chain)).toEqual([
        ['trigger', 'completed'],
        ['throttle', 'skipped'],
        ['in_app', 'skipped'],
      ]);
      const throttle = jobOf(chain, 'throttle');
      expect(detailLines(throttle)).toEqual([
        ['Step created', 'Pending'],
        ['Step queued', 'Pending'],
        ['Step was throttled, the limit of the window is reached', 'Success'],
      ]);
      expect(detailOf(throttle, 'Step was throttled, the limit of the window is reached').raw).toEqual({
        threshold: 2,
        window: { amount: 1, unit: 'minutes' },
        count: 2,
      });
      expect(detailLines(jobOf(chain, 'in_app'))).toEqual([['Step created', 'Pending']]);
    }

    // Messages: one per run that passed, none for the throttled runs; bob has his own window.
    const contents = await Promise.all(transactionIds.map(async (id) => (await messagesOf(t, id)).map((m) => m.content)));
    expect(contents.flat().sort()).toEqual(['Through: bob-1', ...passed.map((chain) => `Through: ${String(chain[0].payload.n)}`)].sort());
    expect(statuses(chains[2])).toEqual([
      ['trigger', 'completed'],
      ['throttle', 'completed'],
      ['in_app', 'completed'],
    ]);

    // A later run in the same window is counted against the runs that passed (now in the database).
    const [laterId] = await triggerAll(t, env, [{ name: 'throttled', to: 'th-ann', payload: { n: 'ann-5' } }]);
    expect(statuses(await settledChain(t, laterId))).toEqual([
      ['trigger', 'completed'],
      ['throttle', 'skipped'],
      ['in_app', 'skipped'],
    ]);
    expect(await messagesOf(t, laterId)).toEqual([]);
  });

  it('keeps a window per throttleKey value', async () => {
    const transactionIds = await triggerAll(t, env, [
      { name: 'throttled-by-key', to: 'th-cat', payload: { n: 'x-1', channel: { id: 'x' } } },
      { name: 'throttled-by-key', to: 'th-cat', payload: { n: 'y-1', channel: { id: 'y' } } },
    ]);
    const [x1, y1] = await Promise.all(transactionIds.map((id) => settledChain(t, id)));
    const [laterX] = await triggerAll(t, env, [{ name: 'throttled-by-key', to: 'th-cat', payload: { n: 'x-2', channel: { id: 'x' } } }]);
    const x2 = await settledChain(t, laterX);
    expect([x1, y1, x2].map((chain) => jobOf(chain, 'throttle').status)).toEqual(['completed', 'completed', 'skipped']);
    expect(detailOf(jobOf(x2, 'throttle'), 'Step was throttled, the limit of the window is reached').raw).toMatchObject({ threshold: 1, count: 1 });
    const contents = await Promise.all([...transactionIds, laterX].map(async (id) => (await messagesOf(t, id)).map((m) => m.content)));
    expect(contents).toEqual([['Through: x-1'], ['Through: y-1'], []]);
  });
});

/** A service of the host app, injected into custom steps through the module's DI. */
@Injectable()
class LoyaltyService {
  readonly asked: string[] = [];

  discountFor(subscriberId: string): number {
    this.asked.push(subscriberId);
    return 10;
  }
}

const CODE_FIRST: WorkflowDefinition[] = [
  {
    identifier: 'custom-discount',
    name: 'Custom discount',
    steps: [
      {
        type: 'custom',
        handler: ({ moduleRef, subscriber, payload }) => ({
          discount: moduleRef.get(LoyaltyService, { strict: false }).discountFor(String(subscriber.subscriberId)),
          seenOrder: payload.orderId,
        }),
      },
      { type: 'in_app', template: { content: 'Order {{ payload.orderId }}: {{ payload.discount }}% off ({{ payload.seenOrder }})' } },
    ],
  },
  {
    identifier: 'custom-throws',
    name: 'Custom throws',
    steps: [
      {
        type: 'custom',
        handler: () => {
          throw new Error('loyalty service unavailable');
        },
      },
      { type: 'in_app', template: { content: 'Sent anyway, discount "{{ payload.discount }}"' } },
    ],
  },
  {
    identifier: 'custom-throws-stop',
    name: 'Custom throws and stops',
    steps: [
      {
        type: 'custom',
        shouldStopOnFail: true,
        handler: async () => {
          throw new Error('loyalty service unavailable');
        },
      },
      { type: 'in_app', template: { content: 'Never sent' } },
    ],
  },
];

describe('the trigger pipeline: custom steps', () => {
  const t = useTestApp('fastify', { options: { ...FAST_WORKER, workflows: CODE_FIRST }, extraProviders: [LoyaltyService] });
  let env: TestEnvironment;

  beforeAll(async () => {
    env = await createEnvironment(t.moduleRef);
    // Defined at run time: functions are not stored, so its custom step has no handler.
    await t.app.get(WorkflowsService).upsert(env.environmentId, {
      identifier: 'custom-runtime',
      name: 'Custom at run time',
      steps: [{ type: 'custom' }, { type: 'in_app', template: { content: 'After the custom step' } }],
    });
  });

  it('runs the handler with the host DI and hands its result to the later steps', async () => {
    const [transactionId] = await triggerAll(t, env, [{ name: 'custom-discount', to: 'cu-ann', payload: { orderId: 'O-7' } }]);
    const chain = await settledChain(t, transactionId);
    expect(statuses(chain)).toEqual([
      ['trigger', 'completed'],
      ['custom', 'completed'],
      ['in_app', 'completed'],
    ]);
    const custom = jobOf(chain, 'custom');
    expect(detailLines(custom)).toEqual([
      ['Step created', 'Pending'],
      ['Step queued', 'Pending'],
      ['Start sending message', 'Pending'],
      ['Custom step completed', 'Success'],
    ]);
    expect(detailOf(custom, 'Custom step completed').raw).toEqual({ discount: 10, seenOrder: 'O-7' });
    // The host's own singleton was used.
    expect(t.app.get(LoyaltyService).asked).toEqual(['cu-ann']);
    // The custom step's own payload is the trigger's; the later job carries the merged one.
    expect(custom.payload).toEqual({ orderId: 'O-7' });
    expect(jobOf(chain, 'in_app').payload).toEqual({ orderId: 'O-7', discount: 10, seenOrder: 'O-7' });
    const messages = await messagesOf(t, transactionId);
    expect(messages.map((m) => m.content)).toEqual(['Order O-7: 10% off (O-7)']);
  });

  it('fails the step when the handler throws; the run goes on unless shouldStopOnFail', async () => {
    const [goesOn, stops] = await triggerAll(t, env, [
      { name: 'custom-throws', to: 'cu-bob', payload: { orderId: 'O-8' } },
      { name: 'custom-throws-stop', to: 'cu-bob', payload: { orderId: 'O-9' } },
    ]);
    const [goesOnChain, stopsChain] = await Promise.all([settledChain(t, goesOn), settledChain(t, stops)]);
    for (const chain of [goesOnChain, stopsChain]) {
      const custom = jobOf(chain, 'custom');
      expect(custom.status).toBe('failed');
      expect(detailLines(custom)).toEqual([
        ['Step created', 'Pending'],
        ['Step queued', 'Pending'],
        ['Start sending message', 'Pending'],
        ['Custom step failed', 'Failed'],
      ]);
      expect(detailOf(custom, 'Custom step failed').raw).toEqual({ error: 'loyalty service unavailable' });
      expect(custom.error).toMatchObject({ message: 'loyalty service unavailable' });
    }
    expect(jobOf(goesOnChain, 'in_app').status).toBe('completed');
    expect((await messagesOf(t, goesOn)).map((m) => m.content)).toEqual(['Sent anyway, discount ""']);
    expect(jobOf(stopsChain, 'in_app').status).toBe('canceled');
    expect(detailLines(jobOf(stopsChain, 'in_app'))).toEqual([['Step created', 'Pending']]);
    expect(await messagesOf(t, stops)).toEqual([]);
  });

  it('fails a custom step of a workflow defined at run time: it has no handler', async () => {
    const [transactionId] = await triggerAll(t, env, [{ name: 'custom-runtime', to: 'cu-cat' }]);
    const chain = await settledChain(t, transactionId);
    const custom = jobOf(chain, 'custom');
    expect(custom.status).toBe('failed');
    const missing = detailOf(custom, 'Custom step has no handler');
    expect(missing.status).toBe('Failed');
    expect((missing.raw as { error: string }).error).toContain('custom-runtime');
    expect(custom.error?.message).toContain('handler');
    // Not stopped on failure: the in-app step still runs.
    expect(jobOf(chain, 'in_app').status).toBe('completed');
    expect((await messagesOf(t, transactionId)).map((m) => m.content)).toEqual(['After the custom step']);
  });
});

describe('the trigger pipeline: http_request steps', () => {
  const t = useTestApp('fastify', { options: FAST_WORKER });
  let env: TestEnvironment;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    env = await createEnvironment(t.moduleRef);
    receiver = await WebhookReceiver.start();
    receiver.respond('/orders/O-1', { status: 200, body: { accepted: true, id: 'remote-1' } });
    receiver.respond('/broken', { status: 500, body: { error: 'boom' } });
    receiver.respond('/slow', { delayMs: 3_000 });
    const after = { type: 'in_app', template: { content: 'After the request {{ payload.orderId }}' } } as const;
    await createWorkflow(t.app, env.environmentId, {
      identifier: 'http-ok',
      name: 'HTTP ok',
      steps: [
        {
          type: 'http_request',
          request: {
            url: receiver.url('/orders/{{ payload.orderId }}'),
            method: 'PUT',
            headers: { 'x-order': '{{ payload.orderId }}', 'x-subscriber': '{{ subscriber.subscriberId }}' },
            body: '{"order":"{{ payload.orderId }}","total":{{ payload.total }},"name":"{{ subscriber.firstName }}"}',
          },
        },
        after,
      ],
    });
    await createWorkflow(t.app, env.environmentId, {
      identifier: 'http-500',
      name: 'HTTP 500',
      steps: [{ type: 'http_request', request: { url: receiver.url('/broken'), body: '{}' } }, after],
    });
    await createWorkflow(t.app, env.environmentId, {
      identifier: 'http-timeout',
      name: 'HTTP timeout',
      steps: [{ type: 'http_request', shouldStopOnFail: true, request: { url: receiver.url('/slow'), timeoutMs: 300 } }, after],
    });
  });

  afterAll(() => receiver.close());

  it('calls the URL with the rendered method, headers and body, and logs the answer', async () => {
    const [transactionId] = await triggerAll(t, env, [
      { name: 'http-ok', to: { subscriberId: 'http-ann', firstName: 'Ann' }, payload: { orderId: 'O-1', total: 42 } },
    ]);
    const chain = await settledChain(t, transactionId);
    expect(statuses(chain)).toEqual([
      ['trigger', 'completed'],
      ['http_request', 'completed'],
      ['in_app', 'completed'],
    ]);
    const job = jobOf(chain, 'http_request');
    const [request] = receiver.requestsTo('/orders/O-1');
    expect(request).toMatchObject({ method: 'PUT', body: { order: 'O-1', total: 42, name: 'Ann' } });
    expect(request.headers).toMatchObject({ 'x-order': 'O-1', 'x-subscriber': 'http-ann', 'content-type': 'application/json', 'idempotency-key': job.id });
    expect(detailLines(job)).toEqual([
      ['Step created', 'Pending'],
      ['Step queued', 'Pending'],
      ['Start sending message', 'Pending'],
      ['HTTP request completed', 'Success'],
    ]);
    expect(detailOf(job, 'HTTP request completed').raw).toEqual({
      method: 'PUT',
      url: receiver.url('/orders/O-1'),
      status: 200,
      body: { accepted: true, id: 'remote-1' },
    });
    expect((await messagesOf(t, transactionId)).map((m) => m.content)).toEqual(['After the request O-1']);
  });

  it('fails on a 500 answer; without shouldStopOnFail the run goes on', async () => {
    const [transactionId] = await triggerAll(t, env, [{ name: 'http-500', to: 'http-bob', payload: { orderId: 'O-2' } }]);
    const chain = await settledChain(t, transactionId);
    const job = jobOf(chain, 'http_request');
    expect(statuses(chain)).toEqual([
      ['trigger', 'completed'],
      ['http_request', 'failed'],
      ['in_app', 'completed'],
    ]);
    expect(detailLines(job).slice(-1)).toEqual([['HTTP request failed', 'Failed']]);
    expect(detailOf(job, 'HTTP request failed').raw).toEqual({ method: 'POST', url: receiver.url('/broken'), status: 500, body: { error: 'boom' } });
    expect(job.error).toMatchObject({ message: 'HTTP 500' });
    expect(receiver.requestsTo('/broken')).toHaveLength(1);
    expect((await messagesOf(t, transactionId)).map((m) => m.content)).toEqual(['After the request O-2']);
  });

  it('fails on a timeout, and shouldStopOnFail stops the run', async () => {
    const [transactionId] = await triggerAll(t, env, [{ name: 'http-timeout', to: 'http-cat', payload: { orderId: 'O-3' } }]);
    const chain = await settledChain(t, transactionId);
    const job = jobOf(chain, 'http_request');
    expect(statuses(chain)).toEqual([
      ['trigger', 'completed'],
      ['http_request', 'failed'],
      ['in_app', 'canceled'],
    ]);
    expect(detailOf(job, 'HTTP request failed').raw).toEqual({ method: 'POST', url: receiver.url('/slow'), error: 'timed out after 300 ms' });
    expect(job.error).toMatchObject({ message: 'timed out after 300 ms' });
    expect(receiver.requestsTo('/slow')).toHaveLength(1);
    expect(detailLines(jobOf(chain, 'in_app'))).toEqual([['Step created', 'Pending']]);
    expect(await messagesOf(t, transactionId)).toEqual([]);
  });
});
