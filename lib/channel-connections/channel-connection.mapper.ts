import type { ChannelType, ProviderId } from '../common/enums';
import type { ChannelConnectionAuth, ChannelConnectionEntity } from './channel-connection.entity';
import type { ChannelConnectionsPage } from './channel-connections.service';
import type { AuthDto, GetChannelConnectionResponseDto } from './dto/channel-connection-response.dto';
import type { ListChannelConnectionsResponseDto } from './dto/list-channel-connections-response.dto';

/**
 * Entity → `GetChannelConnectionResponseDto`. `auth` is given already decrypted or redacted (the
 * service decides, see `revealTokens`); `accessToken` is always emitted because the SDK requires it,
 * the other token fields only when set (optional, not nullable: omitted, never null).
 */
export function toChannelConnectionResponse(connection: ChannelConnectionEntity, auth: ChannelConnectionAuth): GetChannelConnectionResponseDto {
  const authDto: AuthDto = {
    accessToken: auth.accessToken ?? '',
    ...(auth.refreshToken !== undefined && { refreshToken: auth.refreshToken }),
    ...(auth.expiresAt !== undefined && { expiresAt: auth.expiresAt }),
    ...(auth.refreshTokenExpiresAt !== undefined && { refreshTokenExpiresAt: auth.refreshTokenExpiresAt }),
  };
  return {
    _id: connection.id,
    identifier: connection.identifier,
    channel: (connection.channel as ChannelType | null) ?? null,
    providerId: (connection.providerId as ProviderId | null) ?? null,
    integrationIdentifier: connection.integrationIdentifier ?? null,
    subscriberId: connection.subscriberId ?? null,
    contextKeys: connection.contextKeys ?? [],
    workspace: {
      id: connection.workspace.id,
      ...(connection.workspace.name !== undefined && connection.workspace.name !== null && { name: connection.workspace.name }),
    },
    auth: authDto,
    createdAt: connection.createdAt.toISOString(),
    updatedAt: connection.updatedAt.toISOString(),
  };
}

/** A service page → `ListChannelConnectionsResponseDto`. */
export function toListChannelConnectionsResponse(page: ChannelConnectionsPage): ListChannelConnectionsResponseDto {
  return {
    data: page.data.map(({ connection, auth }) => toChannelConnectionResponse(connection, auth)),
    next: page.next,
    previous: page.previous,
    totalCount: page.totalCount,
    totalCountCapped: page.totalCountCapped,
  };
}
