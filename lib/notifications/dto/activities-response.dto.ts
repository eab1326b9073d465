import { ApiProperty } from '@nestjs/swagger';
import { ActivityNotificationResponseDto } from './activity-notification-response.dto';

/**
 * A page of notifications (`GET /v1/notifications`), newest first. Each item has the shape of
 * `GET /v1/notifications/{notificationId}`. No total count: the contract has none for this list.
 * @publicApi
 */
export class ActivitiesResponseDto {
  @ApiProperty({ type: Boolean, description: 'Indicates if there are more activities in the result set' })
  readonly hasMore!: boolean;

  @ApiProperty({ type: [ActivityNotificationResponseDto], description: 'Array of activity notifications' })
  readonly data!: ActivityNotificationResponseDto[];

  @ApiProperty({ type: Number, description: 'Page size of the activities (the `limit` applied)' })
  readonly pageSize!: number;

  @ApiProperty({ type: Number, description: 'Current page of the activities (from 0)' })
  readonly page!: number;
}
