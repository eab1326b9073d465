import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, ValidateBy } from 'class-validator';
import { LimitQueryParam, PageQueryParam, toBoolean } from '../../common/query-params';
import { decodeFeedPayload } from '../feed-payload';
import { DEFAULT_FEED_LIMIT, MAX_FEED_LIMIT } from '../messages.service';

/**
 * Query of `GET /v1/subscribers/{subscriberId}/notifications/feed`.
 * @publicApi
 */
export class GetNotificationsFeedQueryDto {
  @PageQueryParam({ type: Number, minimum: 0, default: 0, example: 0, description: 'Page number (from 0).' })
  readonly page?: number;

  @LimitQueryParam(MAX_FEED_LIMIT, {
    type: Number,
    minimum: 1,
    maximum: MAX_FEED_LIMIT,
    default: DEFAULT_FEED_LIMIT,
    example: 10,
    description: `Notifications per page (1 to ${MAX_FEED_LIMIT}).`,
  })
  readonly limit?: number;

  @ApiPropertyOptional({ type: Boolean, description: 'Only the notifications read (`true`) or unread (`false`).' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  readonly read?: boolean;

  @ApiPropertyOptional({ type: Boolean, description: 'Only the notifications seen (`true`) or unseen (`false`).' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  readonly seen?: boolean;

  @ApiPropertyOptional({
    type: String,
    description:
      'Base64 encoded string of the partial payload JSON object: only the notifications whose trigger payload ' +
      'contains it (nested objects match partially, arrays by containment).',
    example: 'btoa(JSON.stringify({ foo: 123 })) results in base64 encoded string like eyJmb28iOjEyM30=',
  })
  @IsOptional()
  @ValidateBy({
    name: 'isBase64JsonObject',
    validator: {
      validate: (value: unknown) => 'value' in decodeFeedPayload(value),
      defaultMessage: (args) => {
        const decoded = decodeFeedPayload(args?.value);
        return 'problem' in decoded ? decoded.problem : 'payload must be a base64-encoded JSON object';
      },
    },
  })
  readonly payload?: string;
}
