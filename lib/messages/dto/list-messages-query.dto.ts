import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { CHANNEL_TYPES, type ChannelType } from '../../common/enums';
import { MAX_PAGE, toNumber, toStringArray } from '../../common/query-params';
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

  @ApiPropertyOptional({ type: [String], description: 'Messages of this transaction, or of any of these transactions.' })
  @IsOptional()
  @Transform(toStringArray)
  @IsArray()
  @IsString({ each: true })
  readonly transactionId?: string[];

  @ApiPropertyOptional({
    type: [String],
    description:
      'Filter by exact context keys, order insensitive (format: "type:id"). A single empty value ' +
      '(`contextKeys=`) selects the messages sent without context.',
    example: ['tenant:org-123', 'region:us-east-1'],
  })
  @IsOptional()
  @Transform(toStringArray)
  @IsArray()
  @IsString({ each: true })
  readonly contextKeys?: string[];

  @ApiPropertyOptional({ type: Number, minimum: 0, default: 0, description: 'Page number (from 0).' })
  @IsOptional()
  @Transform(toNumber)
  @IsInt()
  @Min(0)
  @Max(MAX_PAGE)
  readonly page?: number;

  @ApiPropertyOptional({
    type: Number,
    minimum: 1,
    maximum: MAX_MESSAGES_LIMIT,
    default: DEFAULT_MESSAGES_LIMIT,
    description: `Messages per page (1 to ${MAX_MESSAGES_LIMIT}).`,
  })
  @IsOptional()
  @Transform(toNumber)
  @IsInt()
  @Min(1)
  @Max(MAX_MESSAGES_LIMIT)
  readonly limit?: number;
}
