import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { LIST_COUNT_CAP } from '../../common/query-params';
import { NotificationFeedItemDto } from './notification-feed-item.dto';

/**
 * A page of a subscriber's in-app feed, newest first.
 * @publicApi
 */
export class FeedResponseDto {
  @ApiPropertyOptional({
    type: Number,
    example: 5,
    description: `Total number of notifications available, counted up to ${LIST_COUNT_CAP.toLocaleString('en-US')}: a larger feed reports ${LIST_COUNT_CAP.toLocaleString('en-US')}.`,
  })
  readonly totalCount?: number;

  @ApiProperty({ type: Boolean, example: true, description: 'Indicates if there are more notifications to load.' })
  readonly hasMore!: boolean;

  @ApiProperty({ type: [NotificationFeedItemDto], description: 'Array of notifications returned in the response.' })
  readonly data!: NotificationFeedItemDto[];

  @ApiProperty({ type: Number, example: 10, description: 'The page size (the `limit` applied).' })
  readonly pageSize!: number;

  @ApiProperty({ type: Number, example: 0, description: 'The current page number (from 0).' })
  readonly page!: number;
}
