import { Controller, Get, Param, UseFilters, UseGuards, UsePipes } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { type NotificationsPrincipal, Principal } from '../auth/principal';
import { ApiErrorResponses } from '../common/api-responses.decorator';
import { NotificationsExceptionFilter } from '../common/errors/notifications-exception.filter';
import { ParseObjectIdPipe } from '../common/object-id.pipe';
import { createNotificationsValidationPipe } from '../common/validation.pipe';
import { ActivityNotificationResponseDto } from './dto/activity-notification-response.dto';
import { toActivityNotificationResponse } from './notification.mapper';
import { NotificationsService } from './notifications.service';

/**
 * `GET /v1/notifications/{notificationId}`.
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
