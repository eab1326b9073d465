import { nextTimedDigest } from '../../lib/delivery/schedule';
import { useTestApp } from '../fixtures/app';
import { createEnvironment, type TestEnvironment } from '../fixtures/factories';
import { chainWhen, detailLines, detailOf, jobOf, messagesOf, queuedStarts, settledChain, statuses } from '../fixtures/job-log';
import { createWorkflow } from '../fixtures/notification.factory';
import { FAST_WORKER, rows, triggerBulk, type TestEvent } from '../fixtures/pipeline';

const SECOND = 1_000;

const DAY = 86_400_000;

/**
 * `amount` calendar months after `from`, in UTC, clamped to the end of the target month and keeping
 * the time of day (Jan 31 + 1 month = Feb 28/29). Written independently of lib/delivery/schedule so
 * that the spec checks the rule, not the code against itself.
 */
function addCalendarMonths(from: Date, amount: number): Date {
  const year = from.getUTCFullYear();
  const month = from.getUTCMonth() + amount;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(year, month, Math.min(from.getUTCDate(), lastDay), from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds(), from.getUTCMilliseconds()),
  );
}

/** One in-app step that says which event of which run it is. */
const IN_APP_AFTER = { type: 'in_app', template: { content: 'After the wait: {{ payload.n }}' } } as const;

/** The digest's in-app step: the count twice (two ways) and every event's `item`. */
const DIGEST_IN_APP = {
  type: 'in_app',
  template: { content: '{{ step.total_count }} update(s), {{ step.events | size }} event(s): {% for event in step.events %}{{ event.item }};{% endfor %}' },
} as const;

describe('the trigger pipeline: delay steps', () => {
  const t = useTestApp('fastify', { options: FAST_WORKER });
  let env: TestEnvironment;

  /** Triggers one event for one recipient and returns its transaction id. */
  async function trigger(event: Omit<TestEvent, 'to'> & { to?: unknown }, subscriberId = 'delay-sub'): Promise<string> {
    const [result] = await triggerBulk(t, env, [{ to: subscriberId, ...event }]);
    expect(result.status).toBe('processed');
    return result.transactionId!;
  }

  beforeAll(async () => {
    env = await createEnvironment(t.moduleRef);
    const delay = (identifier: string, metadata: Record<string, unknown>) =>
      createWorkflow(t.app, env.environmentId, { identifier, name: identifier, steps: [{ type: 'delay', metadata }, IN_APP_AFTER] });
    await delay('delay-seconds', { type: 'regular', amount: 1, unit: 'seconds' });
    for (const unit of ['minutes', 'hours', 'days', 'weeks', 'months']) await delay(`delay-${unit}`, { type: 'regular', amount: 3, unit });
    await delay('delay-overridden', { type: 'regular', amount: 5, unit: 'days' });
    await delay('delay-scheduled', { type: 'scheduled', delayPath: 'meeting.startsAt' });
  });

  it('waits a 1 s delay: the job is delayed first, then completes, and the in-app after it is delivered only then', async () => {
    const transactionId = await trigger({ name: 'delay-seconds', payload: { n: 1 } });
    const whileDelayed = await chainWhen(t, transactionId, 'delay', 'delayed', 5_000);
    expect(jobOf(whileDelayed, 'in_app').status).toBe('pending');
    expect(await messagesOf(t, transactionId)).toEqual([]);

    const chain = await settledChain(t, transactionId);
    const delayJob = jobOf(chain, 'delay');
    expect(statuses(chain)).toEqual([
      ['trigger', 'completed'],
      ['delay', 'completed'],
      ['in_app', 'completed'],
    ]);
    expect(detailLines(delayJob)).toEqual([
      ['Step created', 'Pending'],
      ['Step delayed', 'Pending'],
      ['Step queued', 'Pending'],
      ['Delay is finished', 'Success'],
    ]);
    expect(detailOf(delayJob, 'Step delayed').raw).toEqual({ delay: 1000 });
    expect(detailLines(jobOf(chain, 'in_app'))).toEqual([
      ['Step created', 'Pending'],
      ['Step queued', 'Pending'],
      ['Start sending message', 'Pending'],
      ['Message created', 'Pending'],
      ['Message sent', 'Success'],
    ]);

    // The queue entry of the delay was due one second after the delay was scheduled, and the
    // message was written after that.
    const [startAfter] = await queuedStarts(t, delayJob.id);
    const scheduledAt = detailOf(delayJob, 'Step delayed').createdAt.getTime();
    expect(Math.abs(startAfter.getTime() - SECOND - scheduledAt)).toBeLessThan(500);
    const [message] = await messagesOf(t, transactionId);
    expect(message).toMatchObject({ channel: 'in_app', status: 'sent', content: 'After the wait: 1', job_id: jobOf(chain, 'in_app').id });
    expect(message.created_at.getTime()).toBeGreaterThanOrEqual(startAfter.getTime());
    expect(detailOf(delayJob, 'Delay is finished').createdAt.getTime()).toBeGreaterThanOrEqual(startAfter.getTime());
  });

  it.each([
    ['minutes', (from: Date) => new Date(from.getTime() + 3 * 60_000)],
    ['hours', (from: Date) => new Date(from.getTime() + 3 * 3_600_000)],
    ['days', (from: Date) => new Date(from.getTime() + 3 * DAY)],
    ['weeks', (from: Date) => new Date(from.getTime() + 3 * 7 * DAY)],
    ['months', (from: Date) => addCalendarMonths(from, 3)],
  ])('schedules a delay of 3 %s at the right time', async (unit, expectedEnd) => {
    const before = Date.now();
    const transactionId = await trigger({ name: `delay-${unit}`, payload: { n: unit } });
    const chain = await chainWhen(t, transactionId, 'delay', 'delayed', 5_000);
    const after = Date.now();
    const delayJob = jobOf(chain, 'delay');
    const { delay } = detailOf(delayJob, 'Step delayed').raw as { delay: number };
    const [startAfter] = await queuedStarts(t, delayJob.id);
    // The entry is due `delay` ms after the moment the worker scheduled it: that moment lies within the test.
    const scheduledAt = new Date(startAfter.getTime() - delay);
    expect(scheduledAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(scheduledAt.getTime()).toBeLessThanOrEqual(after);
    expect(startAfter.toISOString()).toBe(expectedEnd(scheduledAt).toISOString());
    if (unit === 'weeks') expect(delay).toBe(21 * DAY);
    // Nothing after the delay has run, and it stays that way for now.
    expect(jobOf(chain, 'in_app').status).toBe('pending');
    expect(await messagesOf(t, transactionId)).toEqual([]);
  });

  it('uses overrides.delay from the trigger instead of the step metadata', async () => {
    const transactionId = await trigger({ name: 'delay-overridden', payload: { n: 'override' }, overrides: { delay: { amount: 1, unit: 'seconds' } } });
    const chain = await settledChain(t, transactionId);
    const delayJob = jobOf(chain, 'delay');
    expect(delayJob.status).toBe('completed');
    expect(detailOf(delayJob, 'Step delayed').raw).toEqual({ delay: 1000 });
    expect((await messagesOf(t, transactionId)).map((m) => m.content)).toEqual(['After the wait: override']);
  });

  it('waits a scheduled delay until the ISO date at delayPath', async () => {
    const startsAt = new Date(Date.now() + 1_500);
    const transactionId = await trigger({ name: 'delay-scheduled', payload: { n: 'meeting', meeting: { startsAt: startsAt.toISOString() } } });
    const chain = await settledChain(t, transactionId);
    const delayJob = jobOf(chain, 'delay');
    expect(chain.map((job) => job.status)).toEqual(['completed', 'completed', 'completed']);
    const { delay } = detailOf(delayJob, 'Step delayed').raw as { delay: number };
    expect(delay).toBeGreaterThan(0);
    expect(delay).toBeLessThanOrEqual(1_500);
    const [startAfter] = await queuedStarts(t, delayJob.id);
    expect(startAfter.toISOString()).toBe(startsAt.toISOString());
    const [message] = await messagesOf(t, transactionId);
    expect(message.content).toBe('After the wait: meeting');
    expect(message.created_at.getTime()).toBeGreaterThanOrEqual(startsAt.getTime());
  });

  it.each([
    ['a past date', { meeting: { startsAt: new Date(Date.now() - 60_000).toISOString() } }, 'must be a future date'],
    ['no date at the path', { meeting: {} }, 'is missing'],
    ['a value that is not a date', { meeting: { startsAt: 'next tuesday' } }, 'is not a valid ISO date'],
  ])('fails a scheduled delay with %s, and the later steps never run', async (_, payload, reason) => {
    const transactionId = await trigger({ name: 'delay-scheduled', payload: { n: 'bad', ...payload } });
    const chain = await settledChain(t, transactionId);
    const delayJob = jobOf(chain, 'delay');
    expect(statuses(chain)).toEqual([
      ['trigger', 'completed'],
      ['delay', 'failed'],
      ['in_app', 'canceled'],
    ]);
    const invalid = detailOf(delayJob, 'Invalid delay configuration');
    expect(invalid.status).toBe('Failed');
    expect((invalid.raw as { error: string }).error).toBe(`Delay date at path meeting.startsAt ${reason}`);
    expect(delayJob.error?.message).toBe(`Delay date at path meeting.startsAt ${reason}`);
    // As the reference: the failure is the job's last line (no `Step delayed`, no `Step queued`).
    expect(detailLines(delayJob)).toEqual([
      ['Step created', 'Pending'],
      ['Invalid delay configuration', 'Failed'],
    ]);
    expect(await queuedStarts(t, delayJob.id)).toEqual([]);
    expect(detailLines(jobOf(chain, 'in_app'))).toEqual([['Step created', 'Pending']]);
    expect(await messagesOf(t, transactionId)).toEqual([]);
  });
});

describe('the trigger pipeline: digest steps', () => {
  const t = useTestApp('fastify', { options: FAST_WORKER });
  let env: TestEnvironment;

  async function trigger(events: TestEvent[]): Promise<string[]> {
    const results = await triggerBulk(t, env, events);
    expect(results.map((r) => r.status)).toEqual(events.map(() => 'processed'));
    return results.map((r) => r.transactionId!);
  }

  async function notificationOf(transactionId: string) {
    const [notification] = await rows<{ id: string; digested_notification_id: string | null }>(
      t,
      'SELECT id, digested_notification_id FROM ntf_notification WHERE transaction_id = $1',
      [transactionId],
    );
    return notification;
  }

  beforeAll(async () => {
    env = await createEnvironment(t.moduleRef);
    const digest = (identifier: string, metadata: Record<string, unknown>) =>
      createWorkflow(t.app, env.environmentId, { identifier, name: identifier, steps: [{ type: 'digest', metadata }, DIGEST_IN_APP] });
    await digest('digest-regular', { type: 'regular', amount: 3, unit: 'seconds', digestKey: 'orderId' });
    await digest('digest-backoff-type', { type: 'backoff', amount: 1, unit: 'seconds', backoffAmount: 30, backoffUnit: 'seconds' });
    await digest('digest-backoff-flag', { type: 'regular', amount: 1, unit: 'seconds', backoff: true, backoffAmount: 30, backoffUnit: 'seconds' });
    await digest('digest-cron', { type: 'timed', timed: { cronExpression: '* * * * * *' } });
    await digest('digest-daily', { type: 'timed', unit: 'days', amount: 1, timed: { atTime: '09:30' } });
    await digest('digest-invalid', { type: 'timed', unit: 'days', timed: { atTime: '25:00' } });
  });

  it('digests three events of one subscriber and key into one run; the other two runs are merged into it', async () => {
    const event = (item: string): TestEvent => ({ name: 'digest-regular', to: 'dg-ann', payload: { orderId: 'A', item } });
    const transactionIds = await trigger([event('a1')]);
    // The first run opens the window; the next two arrive while it is open, one request each.
    await chainWhen(t, transactionIds[0], 'digest', 'delayed', 2_000);
    for (const item of ['a2', 'a3']) transactionIds.push(...(await trigger([event(item)])));
    const [first, ...others] = await Promise.all(transactionIds.map((id) => settledChain(t, id)));
    const digestJob = jobOf(first, 'digest');
    expect(statuses(first)).toEqual([
      ['trigger', 'completed'],
      ['digest', 'completed'],
      ['in_app', 'completed'],
    ]);
    expect(detailLines(digestJob)).toEqual([
      ['Step created', 'Pending'],
      ['Step digested', 'Pending'],
      ['Step queued', 'Pending'],
      ['Start digesting', 'Pending'],
      ['Digest triggered events', 'Success'],
    ]);
    expect(detailOf(digestJob, 'Step digested').raw).toEqual({ delay: 3000 });
    const payloads = ['a1', 'a2', 'a3'].map((item) => ({ orderId: 'A', item }));
    expect(detailOf(digestJob, 'Digest triggered events').raw).toEqual(payloads);
    expect(digestJob.digest).toMatchObject({ events: payloads });

    const firstNotification = await notificationOf(transactionIds[0]);
    expect(firstNotification.digested_notification_id).toBeNull();
    for (const [i, chain] of others.entries()) {
      const merged = jobOf(chain, 'digest');
      expect(statuses(chain)).toEqual([
        ['trigger', 'completed'],
        ['digest', 'merged'],
        ['in_app', 'merged'],
      ]);
      expect(merged.mergedDigestId).toBe(digestJob.id);
      expect(detailLines(merged)).toEqual([
        ['Step created', 'Pending'],
        ['Digest was merged with other digest', 'Success'],
        ['Step queued', 'Pending'],
      ]);
      expect(detailLines(jobOf(chain, 'in_app'))).toEqual([['Step created', 'Pending']]);
      expect((await notificationOf(transactionIds[i + 1])).digested_notification_id).toBe(firstNotification.id);
      expect(await messagesOf(t, transactionIds[i + 1])).toEqual([]);
    }

    const messages = await messagesOf(t, transactionIds[0]);
    expect(messages.map((m) => m.content)).toEqual(['3 update(s), 3 event(s): a1;a2;a3;']);
  });

  it('keeps a digest per digestKey value and per subscriber', async () => {
    // One request: the runs of a key may share a batch, where the first one opens the window.
    const transactionIds = await trigger([
      { name: 'digest-regular', to: 'dg-bob', payload: { orderId: 'B', item: 'b1' } },
      { name: 'digest-regular', to: 'dg-bob', payload: { orderId: 'C', item: 'c1' } },
      { name: 'digest-regular', to: 'dg-cat', payload: { orderId: 'B', item: 'cat-b1' } },
      { name: 'digest-regular', to: 'dg-bob', payload: { orderId: 'B', item: 'b2' } },
      { name: 'digest-regular', to: 'dg-bob', payload: { orderId: 'C', item: 'c2' } },
    ]);
    const chains = await Promise.all(transactionIds.map((id) => settledChain(t, id)));
    const [bobB1, bobC1, catB1, bobB2, bobC2] = chains.map((chain) => jobOf(chain, 'digest'));
    expect([bobB1, bobC1, catB1].map((job) => job.status)).toEqual(['completed', 'completed', 'completed']);
    expect([bobB2.status, bobB2.mergedDigestId]).toEqual(['merged', bobB1.id]);
    expect([bobC2.status, bobC2.mergedDigestId]).toEqual(['merged', bobC1.id]);
    expect(detailOf(bobB1, 'Digest triggered events').raw).toEqual([
      { orderId: 'B', item: 'b1' },
      { orderId: 'B', item: 'b2' },
    ]);
    expect(detailOf(catB1, 'Digest triggered events').raw).toEqual([{ orderId: 'B', item: 'cat-b1' }]);

    const contents = await Promise.all(transactionIds.map(async (id) => (await messagesOf(t, id)).map((m) => m.content)));
    expect(contents).toEqual([['2 update(s), 2 event(s): b1;b2;'], ['2 update(s), 2 event(s): c1;c2;'], ['1 update(s), 1 event(s): cat-b1;'], [], []]);
  });

  it.each(['digest-backoff-type', 'digest-backoff-flag'])(
    '%s: sends the first event at once and digests the later ones of the backoff window',
    async (workflow) => {
      const subscriberId = `${workflow}-sub`;
      const [firstId] = await trigger([{ name: workflow, to: subscriberId, payload: { item: 'e1' } }]);
      const first = await settledChain(t, firstId, 5_000);
      const skipped = jobOf(first, 'digest');
      expect(statuses(first)).toEqual([
        ['trigger', 'completed'],
        ['digest', 'skipped'],
        ['in_app', 'completed'],
      ]);
      expect(detailLines(skipped)).toEqual([
        ['Step created', 'Pending'],
        ['Digest was skipped, first backoff event', 'Success'],
        ['Step queued', 'Pending'],
      ]);
      // Not digested: no delayed queue entry for it, and the in-app step ran in the same batch.
      expect(await queuedStarts(t, skipped.id)).toEqual([]);
      expect((await messagesOf(t, firstId)).map((m) => m.content)).toEqual(['0 update(s), 0 event(s): ']);

      const [secondId, thirdId] = await trigger([
        { name: workflow, to: subscriberId, payload: { item: 'e2' } },
        { name: workflow, to: subscriberId, payload: { item: 'e3' } },
      ]);
      const whileOpen = await chainWhen(t, secondId, 'digest', 'delayed', 5_000);
      expect(detailOf(jobOf(whileOpen, 'digest'), 'Step digested').raw).toEqual({ delay: 1000 });
      const [second, third] = await Promise.all([settledChain(t, secondId), settledChain(t, thirdId)]);
      const digested = jobOf(second, 'digest');
      expect(digested.status).toBe('completed');
      expect(detailOf(digested, 'Digest triggered events').raw).toEqual([{ item: 'e2' }, { item: 'e3' }]);
      expect(jobOf(third, 'digest')).toMatchObject({ status: 'merged', mergedDigestId: digested.id });
      expect((await messagesOf(t, secondId)).map((m) => m.content)).toEqual(['2 update(s), 2 event(s): e2;e3;']);
      expect(await messagesOf(t, thirdId)).toEqual([]);
    },
  );

  it('fires a timed digest with a cron expression of every second within a few seconds', async () => {
    const [transactionId] = await trigger([{ name: 'digest-cron', to: 'dg-cron', payload: { item: 'tick' } }]);
    const chain = await settledChain(t, transactionId, 10_000);
    const digestJob = jobOf(chain, 'digest');
    expect(digestJob.status).toBe('completed');
    const { delay } = detailOf(digestJob, 'Step digested').raw as { delay: number };
    expect(delay).toBeGreaterThan(0);
    expect(delay).toBeLessThanOrEqual(1000);
    // The next whole second: a cron fire time.
    const [startAfter] = await queuedStarts(t, digestJob.id);
    expect(startAfter.getUTCMilliseconds()).toBe(0);
    const [message] = await messagesOf(t, transactionId);
    expect(message.content).toBe('1 update(s), 1 event(s): tick;');
    // The next whole second, then the queue's next poll (0.5 s): about 1.5 s, with room for a loaded CI machine.
    expect(message.created_at.getTime() - detailOf(digestJob, 'Step digested').createdAt.getTime()).toBeLessThan(4_000);
  });

  it.each([
    ['UTC', 'dg-daily-utc', undefined],
    ['the subscriber time zone', 'dg-daily-tokyo', 'Asia/Tokyo'],
  ])('schedules a timed daily digest at atTime (%s)', async (_, subscriberId, timezone) => {
    const [transactionId] = await trigger([{ name: 'digest-daily', to: { subscriberId, ...(timezone && { timezone }) }, payload: { item: 'daily' } }]);
    const chain = await chainWhen(t, transactionId, 'digest', 'delayed', 5_000);
    const digestJob = jobOf(chain, 'digest');
    const { delay } = detailOf(digestJob, 'Step digested').raw as { delay: number };
    const [startAfter] = await queuedStarts(t, digestJob.id);
    const scheduledAt = new Date(startAfter.getTime() - delay);
    expect(startAfter.toISOString()).toBe(nextTimedDigest({ atTime: '09:30' }, 'days', 1, scheduledAt, timezone).toISOString());
    // Independently: 09:30:00 local time, less than a day ahead.
    const local = new Intl.DateTimeFormat('en-GB', { timeZone: timezone ?? 'UTC', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(startAfter);
    expect(local).toBe('09:30:00');
    expect(delay).toBeGreaterThan(0);
    expect(delay).toBeLessThanOrEqual(DAY);
    expect(jobOf(chain, 'in_app').status).toBe('pending');
  });

  it('fails a digest whose schedule is invalid, and the later steps never run', async () => {
    const [transactionId] = await trigger([{ name: 'digest-invalid', to: 'dg-invalid', payload: { item: 'x' } }]);
    const chain = await settledChain(t, transactionId);
    expect(statuses(chain)).toEqual([
      ['trigger', 'completed'],
      ['digest', 'failed'],
      ['in_app', 'canceled'],
    ]);
    const digestJob = jobOf(chain, 'digest');
    expect(detailLines(digestJob)).toEqual([
      ['Step created', 'Pending'],
      ['Invalid digest configuration', 'Failed'],
    ]);
    expect(detailOf(digestJob, 'Invalid digest configuration').raw).toEqual({ error: 'Invalid atTime "25:00": expected HH:mm (00:00-23:59)' });
    expect(await queuedStarts(t, digestJob.id)).toEqual([]);
    expect(await messagesOf(t, transactionId)).toEqual([]);
  });

  it('leaves no run unfinished except the long-scheduled ones', async () => {
    const open = await rows<{ type: string; status: string; identifier: string }>(
      t,
      "SELECT type, status, identifier FROM ntf_job WHERE status IN ('queued', 'running') ORDER BY identifier",
    );
    expect(open).toEqual([]);
    const waiting = await rows<{ identifier: string }>(t, "SELECT DISTINCT identifier FROM ntf_job WHERE status = 'delayed' ORDER BY identifier");
    expect(waiting.map((row) => row.identifier)).toEqual(['digest-daily']);
  });
});
