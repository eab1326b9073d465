import { Controller, Get, Param, Query, UseFilters, UseGuards, UsePipes } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { type NotificationsPrincipal, Principal } from '../auth/principal';
import { ApiErrorResponses } from '../common/api-responses.decorator';
import { NotificationsExceptionFilter } from '../common/errors/notifications-exception.filter';
import { createNotificationsValidationPipe } from '../common/validation.pipe';
import { FeedResponseDto } from './dto/feed-response.dto';
import { GetNotificationsFeedQueryDto } from './dto/feed-query.dto';
import { toNotificationFeedItem, toSubscriberFeedResponse } from './feed.mapper';
import { MessagesService } from './messages.service';

/**
 * `GET /v1/subscribers/{subscriberId}/notifications/feed`: a subscriber's in-app feed.
 * @publicApi
 */
@ApiTags('Subscribers')
@ApiSecurity('secretKey')
@ApiErrorResponses()
@Controller('v1/subscribers/:subscriberId/notifications')
@UseGuards(ApiKeyGuard)
// No IdempotencyInterceptor: GET ignores `Idempotency-Key` (DESIGN §6); see NotificationsController.
@UseFilters(NotificationsExceptionFilter)
@UsePipes(createNotificationsValidationPipe())
export class SubscriberFeedController {
  constructor(private readonly messages: MessagesService) {}

  /** A page of the subscriber's in-app messages, newest first. */
  @Get('feed')
  @ApiOperation({
    operationId: 'SubscribersV1Controller_getNotificationsFeed',
    summary: 'Retrieve subscriber notifications',
    description:
      'The in-app messages of the subscriber (deleted ones excluded), newest first, offset-paginated with `page` ' +
      'and `limit`. `read` and `seen` keep the messages in that state; `payload` (base64 of a JSON object) keeps ' +
      'those whose trigger payload contains it. Answers 404 `Subscriber not found` for an unknown subscriber.',
    deprecated: true,
  })
  @ApiOkResponse({ type: FeedResponseDto })
  async getNotificationsFeed(
    @Principal() principal: NotificationsPrincipal,
    @Param('subscriberId') subscriberId: string,
    @Query() query: GetNotificationsFeedQueryDto,
  ): Promise<FeedResponseDto> {
    const page = await this.messages.listFeed(principal.environmentId, subscriberId, query);
    const subscriber = toSubscriberFeedResponse(page.subscriber);
    return {
      totalCount: page.totalCount,
      hasMore: page.hasMore,
      data: page.data.map((message) => toNotificationFeedItem(message, subscriber)),
      pageSize: page.pageSize,
      page: page.page,
    };
  }
}
