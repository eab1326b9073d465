import { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { INestApplicationContext } from '@nestjs/common';
import { ObjectId } from 'bson';
import {
  ChannelConnectionsService,
  EnvironmentsService,
  ExecutionDetailEntity,
  IntegrationsService,
  JobEntity,
  MessageEntity,
  NotificationEntity,
  type SubscriberEntity,
  SubscribersService,
  WorkflowsService,
} from '../lib';

/** What the seed leaves behind for the sample app to print. */
export interface SeededDemo {
  environmentId: string;
  apiKey: string;
  notificationId: string;
}

const DEMO_SUBSCRIBERS = [
  { subscriberId: 'ada', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', phone: '+15550000001', locale: 'en-GB' },
  { subscriberId: 'grace', firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com', phone: '+15550000002', locale: 'en-US' },
  { subscriberId: 'alan', firstName: 'Alan', lastName: 'Turing', email: 'alan@example.com', locale: 'en-GB' },
];

/**
 * Seeds a demo environment through the module's own services: subscribers, integrations of several
 * channels (with credentials, stored encrypted), a few hundred channel connections, a workflow, and
 * one notification with its jobs, execution details and in-app messages.
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
  const stored: SubscriberEntity[] = [];
  for (const subscriber of DEMO_SUBSCRIBERS) stored.push(await subscribers.upsert(environmentId, subscriber));

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

  const workflow = await app.get(WorkflowsService).upsert(environmentId, {
    identifier: 'welcome',
    name: 'Welcome',
    description: 'Greets a new user in the app and by email.',
    tags: ['onboarding'],
    steps: [
      { type: 'in_app', name: 'In-app welcome', template: { content: 'Welcome, {{ subscriber.firstName }}!', cta: { type: 'redirect', data: { url: '/start' } } } },
      { type: 'email', name: 'Welcome email', template: { subject: 'Welcome {{ subscriber.firstName }}', content: '<p>Glad to have you.</p>' } },
    ],
  });

  const orm = app.get(MikroORM);
  const notificationId = await orm.em.fork().transactional((em) => seedNotification(em as EntityManager, environmentId, environment.organizationId, stored[0], workflow));
  return { environmentId, apiKey, notificationId };
}

/**
 * One delivered run of the welcome workflow for Ada, written as the pipeline writes it: a trigger job
 * and one job per step, chained, each with its execution details, and the in-app message.
 */
async function seedNotification(
  em: EntityManager,
  environmentId: string,
  organizationId: string,
  subscriber: { id: string; subscriberId: string },
  workflow: { id: string; identifier: string; tags: string[]; steps: { _id: string; _templateId: string; type: string }[] },
): Promise<string> {
  const scope = { environmentId, organizationId };
  const transactionId = `txn_${new ObjectId().toHexString()}`;
  const start = Date.now() - 60_000;
  const at = (ms: number) => new Date(start + ms);
  const notification = em.create(NotificationEntity, {
    ...scope,
    subscriberId: subscriber.id,
    workflowId: workflow.id,
    transactionId,
    channels: ['in_app', 'email'],
    payload: { plan: 'pro' },
    to: { subscriberId: subscriber.subscriberId },
    tags: workflow.tags,
    createdAt: at(0),
    updatedAt: at(0),
  });
  const chain = [
    { type: 'trigger' as const, step: { _id: '', _templateId: '', type: 'trigger' as const, active: true, filters: [] as [] }, providerId: 'novu' },
    { type: 'in_app' as const, step: { ...workflow.steps[0], active: true, shouldStopOnFail: false, filters: [] }, providerId: 'novu' },
    { type: 'email' as const, step: { ...workflow.steps[1], active: true, shouldStopOnFail: false, filters: [] }, providerId: 'sendgrid' },
  ];
  let parentId: string | null = null;
  let ms = 10;
  for (const link of chain) {
    const job: JobEntity = em.create(JobEntity, {
      ...scope,
      notificationId: notification.id,
      subscriberId: subscriber.id,
      externalSubscriberId: subscriber.subscriberId,
      workflowId: workflow.id,
      identifier: workflow.identifier,
      transactionId,
      parentId,
      type: link.type,
      status: 'completed',
      step: link.step as JobEntity['step'],
      payload: notification.payload,
      providerId: link.providerId,
      createdAt: at(ms),
      updatedAt: at(ms + 500),
    });
    parentId = job.id;
    const details = ['Step created', 'Step queued', 'Start sending message'];
    let messageId: string | null = null;
    if (link.type === 'in_app') {
      const message = em.create(MessageEntity, {
        ...scope,
        notificationId: notification.id,
        subscriberId: subscriber.id,
        jobId: job.id,
        workflowId: workflow.id,
        messageTemplateId: link.step._templateId,
        templateIdentifier: workflow.identifier,
        transactionId,
        channel: 'in_app',
        providerId: 'novu',
        content: 'Welcome, Ada!',
        cta: { type: 'redirect', data: { url: '/start' } },
        payload: notification.payload,
        createdAt: at(ms + 300),
        updatedAt: at(ms + 300),
      });
      messageId = message.id;
    }
    if (link.type !== 'trigger') details.push('Message created', 'Message sent');
    details.forEach((detail, index) => {
      em.create(ExecutionDetailEntity, {
        ...scope,
        jobId: job.id,
        notificationId: notification.id,
        workflowId: workflow.id,
        subscriberId: subscriber.id,
        externalSubscriberId: subscriber.subscriberId,
        messageId: detail.startsWith('Message') ? messageId : null,
        providerId: link.providerId,
        transactionId,
        channel: link.type,
        detail,
        status: detail === 'Message sent' ? 'Success' : 'Pending',
        createdAt: at(ms + 100 + index * 50),
        updatedAt: at(ms + 100 + index * 50),
      });
    });
    ms += 1000;
  }
  await em.flush();
  return notification.id;
}
