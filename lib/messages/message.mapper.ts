import type { EmailBlockDto } from './dto/email-block.dto';
import type { MessageCtaDto } from './dto/message-cta.dto';
import type { MessageResponseDto } from './dto/message-response.dto';
import type { MessageEntity } from './message.entity';

/**
 * Entity → `MessageResponseDto`. The SDK is strict about absence versus null: optional fields that are
 * not nullable in the contract are left out when unset, the nullable ones (`_templateId`,
 * `_messageTemplateId`, `_feedId`, `content`) are always present, and `cta` is always an object.
 * `subscriber` and `template` are never sent (see MessageResponseDto).
 */
export function toMessageResponse(message: MessageEntity): MessageResponseDto {
  return {
    _id: message.id,
    _templateId: message.workflowId ?? null,
    _environmentId: message.environmentId,
    _messageTemplateId: message.messageTemplateId ?? null,
    _organizationId: message.organizationId,
    _notificationId: message.notificationId,
    _subscriberId: message.subscriberId,
    ...(message.templateIdentifier != null && { templateIdentifier: message.templateIdentifier }),
    createdAt: message.createdAt.toISOString(),
    ...(message.lastSeenDate && { lastSeenDate: message.lastSeenDate.toISOString() }),
    ...(message.lastReadDate && { lastReadDate: message.lastReadDate.toISOString() }),
    content: (message.content ?? null) as EmailBlockDto[] | string | null,
    transactionId: message.transactionId,
    ...(message.subject != null && { subject: message.subject }),
    channel: message.channel,
    read: message.read,
    seen: message.seen,
    ...(message.snoozedUntil && { snoozedUntil: message.snoozedUntil.toISOString() }),
    ...(message.email != null && { email: message.email }),
    ...(message.phone != null && { phone: message.phone }),
    ...(message.directWebhookUrl != null && { directWebhookUrl: message.directWebhookUrl }),
    ...(message.providerId != null && { providerId: message.providerId }),
    ...(message.deviceTokens && { deviceTokens: message.deviceTokens }),
    ...(message.title != null && { title: message.title }),
    cta: ctaOf(message),
    _feedId: message.feedId ?? null,
    status: message.status,
    ...(message.errorId != null && { errorId: message.errorId }),
    ...(message.errorText != null && { errorText: message.errorText }),
    payload: message.payload ?? {},
    overrides: message.overrides ?? {},
    contextKeys: message.contextKeys ?? [],
  };
}

/** The stored CTA, or `{}`: the SDK requires an object even when the message has no call to action. */
export function ctaOf(message: MessageEntity): MessageCtaDto {
  const cta: unknown = message.cta;
  return cta && typeof cta === 'object' && !Array.isArray(cta) ? (cta as MessageCtaDto) : {};
}
