import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString } from 'class-validator';
import { CHANNEL_TYPES, type ChannelType, PROVIDER_IDS, type ProviderId } from '../../common/enums';
import { LimitQueryParam, StringListQueryParam, toBoolean } from '../../common/query-params';
import {
  CHANNEL_CONNECTION_ORDER_BY,
  type ChannelConnectionOrderBy,
  DEFAULT_CHANNEL_CONNECTIONS_LIMIT,
  MAX_CHANNEL_CONNECTIONS_LIMIT,
  ORDER_DIRECTIONS,
  type OrderDirection,
} from '../channel-connections.service';

/**
 * Query of `GET /v1/channel-connections`: cursor pagination plus filters.
 * @publicApi
 */
export class ListChannelConnectionsQueryDto {
  @ApiPropertyOptional({ type: String, description: 'Cursor for pagination indicating the starting point after which to fetch results.' })
  @IsOptional()
  @IsString()
  readonly after?: string;

  @ApiPropertyOptional({ type: String, description: 'Cursor for pagination indicating the ending point before which to fetch results.' })
  @IsOptional()
  @IsString()
  readonly before?: string;

  @LimitQueryParam(MAX_CHANNEL_CONNECTIONS_LIMIT, {
    type: Number,
    minimum: 1,
    maximum: MAX_CHANNEL_CONNECTIONS_LIMIT,
    default: DEFAULT_CHANNEL_CONNECTIONS_LIMIT,
    example: 10,
    description: `Limit the number of items to return (max ${MAX_CHANNEL_CONNECTIONS_LIMIT})`,
  })
  readonly limit?: number;

  @ApiPropertyOptional({ enum: ORDER_DIRECTIONS, type: String, default: 'DESC', description: 'Direction of sorting' })
  @IsOptional()
  @IsIn(ORDER_DIRECTIONS)
  readonly orderDirection?: OrderDirection;

  // The contract types orderBy as a free string (no enum), so the allowed values are documented and
  // validated but not declared as an enum.
  @ApiPropertyOptional({ type: String, default: 'createdAt', description: 'Field to order by: `createdAt` or `updatedAt`' })
  @IsOptional()
  @IsIn(CHANNEL_CONNECTION_ORDER_BY)
  readonly orderBy?: ChannelConnectionOrderBy;

  @ApiPropertyOptional({ type: Boolean, description: 'Include cursor item in response' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  readonly includeCursor?: boolean;

  @ApiPropertyOptional({ type: String, description: 'The subscriber ID to filter results by', example: 'subscriber-123' })
  @IsOptional()
  @IsString()
  readonly subscriberId?: string;

  @ApiPropertyOptional({ enum: CHANNEL_TYPES, type: String, description: 'Filter by channel type (email, sms, push, chat, etc.).', example: 'chat' })
  @IsOptional()
  @IsIn(CHANNEL_TYPES)
  readonly channel?: ChannelType;

  @ApiPropertyOptional({
    enum: PROVIDER_IDS,
    enumName: 'ProvidersIdEnum',
    description: 'Filter by provider identifier (e.g., sendgrid, twilio, slack, etc.).',
    example: 'slack',
  })
  @IsOptional()
  @IsIn(PROVIDER_IDS)
  readonly providerId?: ProviderId;

  @ApiPropertyOptional({ type: String, description: 'Filter by integration identifier.', example: 'slack-prod' })
  @IsOptional()
  @IsString()
  readonly integrationIdentifier?: string;

  @StringListQueryParam({
    type: [String],
    description:
      'Filter by exact context keys, order insensitive (format: "type:id"). A single empty value ' +
      '(`contextKeys=`) selects the connections without context.',
    example: ['tenant:org-123', 'region:us-east-1'],
  })
  readonly contextKeys?: string[];
}
