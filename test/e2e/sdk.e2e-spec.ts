import type { AddressInfo } from 'node:net';
import { Novu } from '@novu/api';
import { ADAPTERS, useTestApp } from '../fixtures/app';
import { seedManyChannelConnections } from '../fixtures/channel-connection.factory';
import { createEnvironment, createIntegration, createSubscriber, type TestEnvironment } from '../fixtures/factories';
import { createMessages } from '../fixtures/message.factory';
import { createNotification, createWorkflow } from '../fixtures/notification.factory';

/**
 * Drives the running app with Novu's official SDK (`@novu/api`), unchanged but for its `serverURL`.
 * The SDK validates every response against its own strict schemas (closed enums, required fields,
 * non-nullable optionals), so each call below that returns is a call whose body parsed.
 */
describe.each(ADAPTERS)('the official SDK against the app (%s)', (adapter) => {
  const t = useTestApp(adapter);
  let env: TestEnvironment;
  let novu: Novu;
  const CONNECTIONS = 260;

  beforeAll(async () => {
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    env = await createEnvironment(t.moduleRef, 'SDK');
    novu = new Novu({ secretKey: env.apiKey, serverURL: `http://127.0.0.1:${port}`, retryConfig: { strategy: 'none' } });
  });

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
});
