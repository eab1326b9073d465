import type { ChannelSettingsDto, SubscriberResponseDto } from './dto/subscriber-response.dto';
import type { SubscriberEntity } from './subscriber.entity';

/** Entity → `SubscriberResponseDto`. */
export function toSubscriberResponse(subscriber: SubscriberEntity): SubscriberResponseDto {
  return {
    _id: subscriber.id,
    _organizationId: subscriber.organizationId,
    _environmentId: subscriber.environmentId,
    subscriberId: subscriber.subscriberId,
    firstName: subscriber.firstName,
    lastName: subscriber.lastName,
    email: subscriber.email,
    phone: subscriber.phone,
    avatar: subscriber.avatar,
    locale: subscriber.locale,
    timezone: subscriber.timezone,
    data: subscriber.data,
    channels: subscriber.channels.map(
      (channel): ChannelSettingsDto => ({
        providerId: channel.providerId,
        ...(channel.integrationIdentifier !== undefined && { integrationIdentifier: channel.integrationIdentifier }),
        credentials: channel.credentials,
        _integrationId: channel.integrationId,
      }),
    ),
    isOnline: subscriber.isOnline,
    lastOnlineAt: subscriber.lastOnlineAt ? subscriber.lastOnlineAt.toISOString() : null,
    deleted: subscriber.deleted,
    createdAt: subscriber.createdAt.toISOString(),
    updatedAt: subscriber.updatedAt.toISOString(),
    __v: subscriber.version,
  };
}
