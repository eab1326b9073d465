import type { INestApplicationContext } from '@nestjs/common';
import {
  ChannelConnectionsService,
  EnvironmentsService,
  EventsService,
  IntegrationsService,
  NotificationsService,
  SubscribersService,
  type WorkflowDefinition,
  WorkflowsService,
} from '../lib';

/** What the seed leaves behind for the sample app to print. */
export interface SeededDemo {
  environmentId: string;
  apiKey: string;
  /** The demo trigger's transaction: one notification per demo subscriber. */
  transactionId: string;
  /** Ada's notification of that trigger. */
  notificationId: string;
}

/** The identifier of the demo workflow, as a trigger names it. */
export const DEMO_WORKFLOW = 'demo-welcome';

const DEMO_SUBSCRIBERS = [
  { subscriberId: 'ada', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', phone: '+15550000001', locale: 'en-GB' },
  { subscriberId: 'grace', firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com', phone: '+15550000002', locale: 'en-US' },
  { subscriberId: 'alan', firstName: 'Alan', lastName: 'Turing', email: 'alan@example.com', locale: 'en-GB' },
];

/**
 * The demo workflow: an in-app welcome at once, then, after a short delay, a digest that gathers the
 * subscriber's events of the next 20 seconds into one in-app summary. Only in-app steps: the sample
 * app has no receiver for webhook providers, and the seeded vendor integrations hold fake credentials.
 */
const DEMO_WORKFLOW_DEFINITION: WorkflowDefinition = {
  identifier: DEMO_WORKFLOW,
  name: 'Demo welcome',
  description: 'Greets a new user in the app, then sums up what happened in their first moments.',
  tags: ['onboarding'],
  steps: [
    {
      type: 'in_app',
      name: 'In-app welcome',
      template: {
        subject: 'Welcome!',
        content: 'Welcome, {{ subscriber.firstName | default: "friend" }}! Your {{ payload.plan | default: "free" }} plan is ready.',
        cta: { type: 'redirect', data: { url: '/start?plan={{ payload.plan }}' } },
      },
    },
    { type: 'delay', name: 'Let them look around', metadata: { type: 'regular', amount: 10, unit: 'seconds' } },
    { type: 'digest', name: 'Gather updates', metadata: { type: 'regular', amount: 20, unit: 'seconds' } },
    {
      type: 'in_app',
      name: 'In-app summary',
      template: {
        content:
          '{{ step.total_count }} update(s) since you joined: {% for event in step.events %}{{ event.update }}{% unless forloop.last %}, {% endunless %}{% endfor %}.',
      },
    },
  ],
};

/**
 * Seeds a demo environment through the module's own services: subscribers, integrations of several
 * channels (with credentials, stored encrypted), a few hundred channel connections and the demo
 * workflow, then triggers that workflow once through `EventsService.triggerBulk`, exactly as
 * `POST /v1/events/trigger/bulk` does: the notifications, jobs, execution details and in-app messages
 * of the demo are written by the worker running in the app. Needs the app initialised (queue started).
 */
export async function seedDemo(app: INestApplicationContext): Promise<SeededDemo> {
  const { environment, apiKey } = await app.get(EnvironmentsService).create({ name: 'Demo' });
  const environmentId = environment.id;
  const integrations = app.get(IntegrationsService);
  await integrations.create(environmentId, { name: 'In-app', identifier: 'in-app', providerId: 'novu', channel: 'in_app', primary: true });
  await integrations.create(environmentId, {
    name: 'SendGrid',
    identifier: 'sendgrid',
    providerId: 'sendgrid',
    channel: 'email',
    primary: true,
    credentials: { apiKey: 'SG.demo-not-a-real-key', from: 'no-reply@example.com', senderName: 'Demo' },
  });
  await integrations.create(environmentId, {
    name: 'Twilio',
    identifier: 'twilio',
    providerId: 'twilio',
    channel: 'sms',
    primary: true,
    credentials: { accountSid: 'ACdemo', token: 'demo-token', from: '+15550000000' },
  });
  await integrations.create(environmentId, { name: 'Slack', identifier: 'slack', providerId: 'slack', channel: 'chat', credentials: {} });
  await integrations.create(environmentId, {
    name: 'Expo',
    identifier: 'expo',
    providerId: 'expo',
    channel: 'push',
    credentials: { apiKey: 'expo-demo-token' },
  });

  const subscribers = app.get(SubscribersService);
  for (const subscriber of DEMO_SUBSCRIBERS) await subscribers.upsert(environmentId, subscriber);

  const connections = app.get(ChannelConnectionsService);
  for (let i = 0; i < 300; i++) {
    await connections.create(environmentId, {
      identifier: `slack-connection-${String(i).padStart(3, '0')}`,
      channel: 'chat',
      providerId: 'slack',
      integrationIdentifier: 'slack',
      subscriberId: DEMO_SUBSCRIBERS[i % DEMO_SUBSCRIBERS.length].subscriberId,
      contextKeys: [`tenant:team-${i % 7}`],
      workspace: { id: `T${1000 + i}`, name: `Workspace ${i}` },
      auth: { accessToken: `xoxb-demo-${i}` },
    });
  }

  await app.get(WorkflowsService).upsert(environmentId, DEMO_WORKFLOW_DEFINITION);
  // One event for every demo subscriber, and a second one for Ada: her two events meet in the digest.
  const [welcome, followUp] = await app.get(EventsService).triggerBulk(environmentId, [
    { name: DEMO_WORKFLOW, to: DEMO_SUBSCRIBERS.map(({ subscriberId }) => subscriberId), payload: { plan: 'pro', update: 'account created' } },
    { name: DEMO_WORKFLOW, to: 'ada', payload: { plan: 'pro', update: 'profile completed' } },
  ]);
  for (const result of [welcome, followUp]) {
    if (result.status !== 'processed') throw new Error(`The demo trigger answered ${result.status}: ${JSON.stringify(result.error ?? [])}`);
  }
  const transactionId = welcome.transactionId!;
  const { data } = await app.get(NotificationsService).list(environmentId, { transactionId, subscriberIds: 'ada' });
  return { environmentId, apiKey, transactionId, notificationId: data[0].notification.id };
}
