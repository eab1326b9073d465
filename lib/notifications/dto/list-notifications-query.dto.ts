import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsArray, IsIn, IsISO8601, IsOptional, IsString } from 'class-validator';
import { CHANNEL_TYPES, type ChannelType } from '../../common/enums';
import { LimitQueryParam, PageQueryParam, StringListQueryParam, toStringArray } from '../../common/query-params';
import { DEFAULT_NOTIFICATIONS_LIMIT, MAX_NOTIFICATIONS_LIMIT } from '../notifications.service';

/** Said of every parameter the contract declares but this service does not filter on. */
const IGNORED = 'Accepted for compatibility and ignored: this service does not filter on it.';

/**
 * Query of `GET /v1/notifications`: offset pagination plus filters. Array parameters take one value or
 * a repeated key (`channels=email&channels=sms`); filters combine with AND, values of one filter with OR.
 * @publicApi
 */
export class ListNotificationsQueryDto {
  @ApiPropertyOptional({
    enum: CHANNEL_TYPES,
    enumName: 'ChannelTypeEnum',
    isArray: true,
    description: 'Array of channel types: notifications whose workflow run has a step on any of them.',
  })
  @IsOptional()
  @Transform(toStringArray)
  @IsArray()
  @IsIn(CHANNEL_TYPES, { each: true })
  readonly channels?: ChannelType[];

  @StringListQueryParam({ type: [String], description: 'Array of template IDs or a single template ID (workflow `_id`s).' })
  readonly templates?: string[];

  @StringListQueryParam({ type: [String], description: 'Array of email addresses or a single email address (of the subscribers).' })
  readonly emails?: string[];

  @ApiPropertyOptional({ type: String, deprecated: true, description: `Search term (deprecated). ${IGNORED}` })
  @IsOptional()
  @IsString()
  readonly search?: string;

  @StringListQueryParam({
    type: [String],
    description: 'Array of subscriber IDs or a single subscriber ID (the `subscriberId` you gave the subscribers).',
  })
  readonly subscriberIds?: string[];

  @StringListQueryParam({ type: [String], description: `Array of severity levels or a single severity level. ${IGNORED}` })
  readonly severity?: string[];

  @PageQueryParam({ type: Number, minimum: 0, default: 0, description: 'Page number for pagination (from 0)' })
  readonly page?: number;

  @LimitQueryParam(MAX_NOTIFICATIONS_LIMIT, {
    type: Number,
    minimum: 1,
    maximum: MAX_NOTIFICATIONS_LIMIT,
    default: DEFAULT_NOTIFICATIONS_LIMIT,
    description: `Limit for pagination (1 to ${MAX_NOTIFICATIONS_LIMIT})`,
  })
  readonly limit?: number;

  @ApiPropertyOptional({ type: String, description: 'The transaction ID to filter by' })
  @IsOptional()
  @IsString()
  readonly transactionId?: string;

  @ApiPropertyOptional({ type: String, description: `Topic Key for filtering notifications by topic. ${IGNORED}` })
  @IsOptional()
  @IsString()
  readonly topicKey?: string;

  @ApiPropertyOptional({ type: String, description: `Subscription ID for filtering notifications by subscription. ${IGNORED}` })
  @IsOptional()
  @IsString()
  readonly subscriptionId?: string;

  @StringListQueryParam({
    type: [String],
    description:
      'Filter by exact context keys, order insensitive (format: "type:id"). A single empty value ' +
      '(`contextKeys=`) selects the notifications triggered without context.',
    example: ['tenant:org-123', 'region:us-east-1'],
  })
  readonly contextKeys?: string[];

  @ApiPropertyOptional({
    type: String,
    description: 'Date filter (ISO-8601) for records created at or after this timestamp. Without it, no lower bound.',
    example: '2025-01-01T00:00:00.000Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  readonly after?: string;

  @ApiPropertyOptional({
    type: String,
    description: 'Date filter (ISO-8601) for records created at or before this timestamp. Without it, no upper bound.',
    example: '2025-12-31T23:59:59.999Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  readonly before?: string;
}
