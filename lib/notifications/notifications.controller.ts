import { Controller, Get, Param, Query, UseFilters, UseGuards, UsePipes } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { type NotificationsPrincipal, Principal } from '../auth/principal';
import { ApiErrorResponses } from '../common/api-responses.decorator';
import { NotificationsExceptionFilter } from '../common/errors/notifications-exception.filter';
import { ParseObjectIdPipe } from '../common/object-id.pipe';
import { createNotificationsValidationPipe } from '../common/validation.pipe';
import { ActivitiesResponseDto } from './dto/activities-response.dto';
import { ActivityNotificationResponseDto } from './dto/activity-notification-response.dto';
import { ListNotificationsQueryDto } from './dto/list-notifications-query.dto';
import { toActivityNotificationResponse } from './notification.mapper';
import { NotificationsService } from './notifications.service';

/**
 * `GET /v1/notifications` and `GET /v1/notifications/{notificationId}`.
 * @publicApi
 */
@ApiTags('Notifications')
@ApiSecurity('secretKey')
@ApiErrorResponses()
@Controller('v1/notifications')
@UseGuards(ApiKeyGuard)
// No IdempotencyInterceptor: GET ignores `Idempotency-Key` (DESIGN §6), and Nest wraps every intercepted
// call in rxjs and an AsyncResource, about 100 µs a request (bench/http-throughput.bench.ts).
@UseFilters(NotificationsExceptionFilter)
@UsePipes(createNotificationsValidationPipe())
export class NotificationsController {
  constructor(private readonly notifications: NotificationsService) {}

  /** A page of the environment's notifications, newest first. */
  @Get()
  @ApiOperation({
    operationId: 'NotificationsController_listNotifications',
    summary: 'List all events',
    description:
      'The notifications (one run of a workflow for one subscriber) of the caller\'s environment, newest first, ' +
      'offset-paginated with `page` and `limit`; `hasMore` tells whether another page follows. Each item has the ' +
      'shape of `GET /v1/notifications/{notificationId}`. Filters: `transactionId`, `subscriberIds`, `channels`, ' +
      '`templates`, `emails`, `contextKeys`, `after`/`before` (creation date bounds, inclusive); `search`, ' +
      '`severity`, `topicKey` and `subscriptionId` are accepted and ignored.',
  })
  @ApiOkResponse({ type: ActivitiesResponseDto })
  async listNotifications(@Principal() principal: NotificationsPrincipal, @Query() query: ListNotificationsQueryDto): Promise<ActivitiesResponseDto> {
    const page = await this.notifications.list(principal.environmentId, query);
    return { hasMore: page.hasMore, data: page.data.map(toActivityNotificationResponse), pageSize: page.pageSize, page: page.page };
  }

  /** One notification with its jobs and execution logs. */
  @Get(':notificationId')
  @ApiOperation({
    operationId: 'NotificationsController_getNotification',
    summary: 'Retrieve an event',
    description:
      'A notification (one run of a workflow for one subscriber) with its jobs and their execution logs, oldest ' +
      'first; the synthetic trigger job is not listed. `notificationId` is a 24-hex id.',
  })
  @ApiParam({ name: 'notificationId', type: String, description: 'Id of the notification (24 hex characters).' })
  @ApiOkResponse({ type: ActivityNotificationResponseDto })
  async getNotification(
    @Principal() principal: NotificationsPrincipal,
    @Param('notificationId', ParseObjectIdPipe) notificationId: string,
  ): Promise<ActivityNotificationResponseDto> {
    const activity = await this.notifications.findOne(principal.environmentId, notificationId);
    return toActivityNotificationResponse(activity);
  }
}
