import type { SubscriberEntity } from '../subscribers/subscriber.entity';
import type { RunJob } from './run-context';
import type { StepTemplate } from '../workflows/workflow-definition';
import type { TemplateContext, TemplateRenderer } from './template-renderer';

/** The subscriber as templates and filters see it (`subscriber.firstName`, `subscriber.data.plan`, ...). */
export function subscriberView(subscriber: SubscriberEntity | null): Record<string, unknown> {
  if (!subscriber) return {};
  return {
    subscriberId: subscriber.subscriberId,
    firstName: subscriber.firstName,
    lastName: subscriber.lastName,
    email: subscriber.email,
    phone: subscriber.phone,
    avatar: subscriber.avatar,
    locale: subscriber.locale,
    timezone: subscriber.timezone,
    data: subscriber.data ?? {},
    isOnline: subscriber.isOnline,
  };
}

/** The digest results a job sees: the events its run's digest collected, or none. */
export function digestView(run: RunJob): { digest: boolean; events: Record<string, unknown>[]; total_count: number } {
  const events = run.job.digest?.events;
  return Array.isArray(events) ? { digest: true, events, total_count: events.length } : { digest: false, events: [], total_count: 0 };
}

/** Everything a step's Liquid templates can read. */
export function templateContext(run: RunJob): TemplateContext {
  return {
    subscriber: subscriberView(run.subscriber),
    payload: run.job.payload,
    tenant: run.notification.tenant,
    actor: run.notification.actor,
    context: run.notification.context,
    step: digestView(run),
  };
}

/** A step's message after rendering: what the message row and the provider get. */
export interface RenderedMessage {
  content: string;
  subject?: string;
  title?: string;
  /** The call to action's URL. */
  url?: string;
}

/** Renders every template of a message step. Throws the renderer's error on a bad template. */
export function renderMessage(renderer: TemplateRenderer, template: StepTemplate | undefined, run: RunJob): RenderedMessage {
  const context = templateContext(run);
  return {
    content: renderer.render(template?.content, context) ?? '',
    subject: renderer.render(template?.subject, context),
    title: renderer.render(template?.title, context),
    url: renderer.render(template?.cta?.data?.url, context),
  };
}
