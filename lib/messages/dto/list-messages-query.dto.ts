import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { CHANNEL_TYPES, type ChannelType } from '../../common/enums';
import { LimitQueryParam, PageQueryParam, StringListQueryParam } from '../../common/query-params';
import { DEFAULT_MESSAGES_LIMIT, MAX_MESSAGES_LIMIT } from '../messages.service';

/**
 * Query of `GET /v1/messages`: offset pagination plus filters, combined with AND.
 * @publicApi
 */
export class ListMessagesQueryDto {
  @ApiPropertyOptional({ enum: CHANNEL_TYPES, enumName: 'ChannelTypeEnum', description: 'Messages sent on this channel.' })
  @IsOptional()
  @IsIn(CHANNEL_TYPES)
  readonly channel?: ChannelType;

  @ApiPropertyOptional({ type: String, description: 'Messages of this subscriber (the `subscriberId` you gave it).' })
  @IsOptional()
  @IsString()
  readonly subscriberId?: string;

  @StringListQueryParam({ type: [String], description: 'Messages of this transaction, or of any of these transactions.' })
  readonly transactionId?: string[];

  @StringListQueryParam({
    type: [String],
    description:
      'Filter by exact context keys, order insensitive (format: "type:id"). A single empty value ' +
      '(`contextKeys=`) selects the messages sent without context.',
    example: ['tenant:org-123', 'region:us-east-1'],
  })
  readonly contextKeys?: string[];

  @PageQueryParam({ type: Number, minimum: 0, default: 0, description: 'Page number (from 0).' })
  readonly page?: number;

  @LimitQueryParam(MAX_MESSAGES_LIMIT, {
    type: Number,
    minimum: 1,
    maximum: MAX_MESSAGES_LIMIT,
    default: DEFAULT_MESSAGES_LIMIT,
    description: `Messages per page (1 to ${MAX_MESSAGES_LIMIT}).`,
  })
  readonly limit?: number;
}
