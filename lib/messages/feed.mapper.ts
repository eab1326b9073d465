import type { NotificationFeedItemDto, SubscriberFeedResponseDto } from './dto/notification-feed-item.dto';
import type { MessageEntity } from './message.entity';
import type { FeedSubscriber } from './messages.service';
import { ctaOf } from './message.mapper';

/**
 * Entity → `NotificationFeedItemDto`. Stricter than `MessageResponseDto`: the SDK requires `content`,
 * `_templateId` and `_jobId` as strings, so a message without them shows `''` (only messages not written
 * by the delivery worker lack a job or a workflow). Nullable fields are present with `null`; optional
 * non-nullable ones (`_messageTemplateId`) are omitted when unset. `actor` is never sent: the trigger's
 * actor is not kept on the message.
 */
export function toNotificationFeedItem(message: MessageEntity, subscriber: SubscriberFeedResponseDto): NotificationFeedItemDto {
  return {
    _id: message.id,
    _templateId: message.workflowId ?? '',
    _environmentId: message.environmentId,
    ...(message.messageTemplateId != null && { _messageTemplateId: message.messageTemplateId }),
    _organizationId: message.organizationId,
    _notificationId: message.notificationId,
    _subscriberId: message.subscriberId,
    _feedId: message.feedId ?? null,
    _jobId: message.jobId ?? '',
    createdAt: message.createdAt.toISOString(),
    updatedAt: message.updatedAt.toISOString(),
    subscriber,
    transactionId: message.transactionId,
    templateIdentifier: message.templateIdentifier ?? null,
    providerId: message.providerId ?? null,
    content: contentText(message.content),
    subject: message.subject ?? null,
    channel: message.channel,
    read: message.read,
    seen: message.seen,
    archived: message.archived,
    deviceTokens: message.deviceTokens ?? null,
    cta: ctaOf(message),
    status: message.status,
    payload: message.payload ?? {},
    // Messages keep no step data of their own.
    data: null,
    overrides: message.overrides ?? {},
    tags: message.tags ?? null,
  };
}

/** The feed's view of the subscriber: unset names and avatar are omitted, never null. */
export function toSubscriberFeedResponse(subscriber: FeedSubscriber): SubscriberFeedResponseDto {
  return {
    _id: subscriber.id,
    subscriberId: subscriber.subscriberId,
    ...(subscriber.firstName !== null && { firstName: subscriber.firstName }),
    ...(subscriber.lastName !== null && { lastName: subscriber.lastName }),
    ...(subscriber.avatar !== null && { avatar: subscriber.avatar }),
  };
}

/** `content` as the text the feed requires: blocks become their texts, one per line; none becomes `''`. */
function contentText(content: MessageEntity['content']): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((block) => (typeof block?.content === 'string' ? block.content : '')).join('\n');
  return '';
}
