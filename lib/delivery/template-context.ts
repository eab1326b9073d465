import type { SubscriberEntity } from '../subscribers/subscriber.entity';
import type { RunJob } from './run-context';
import type { TemplateContext } from './template-renderer';

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
