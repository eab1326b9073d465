import { Controller, Get, Query, UseFilters, UseGuards, UsePipes } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { type NotificationsPrincipal, Principal } from '../auth/principal';
import { ApiErrorResponses } from '../common/api-responses.decorator';
import { NotificationsExceptionFilter } from '../common/errors/notifications-exception.filter';
import { LIST_COUNT_CAP } from '../common/query-params';
import { createNotificationsValidationPipe } from '../common/validation.pipe';
import { ListMessagesQueryDto } from './dto/list-messages-query.dto';
import { MessagesResponseDto } from './dto/messages-response.dto';
import { toMessageResponse } from './message.mapper';
import { MessagesService } from './messages.service';

/**
 * `GET /v1/messages`: the messages of the caller's environment, on every channel.
 * @publicApi
 */
@ApiTags('Messages')
@ApiSecurity('secretKey')
@ApiErrorResponses()
@Controller('v1/messages')
@UseGuards(ApiKeyGuard)
// No IdempotencyInterceptor: GET ignores `Idempotency-Key` (DESIGN §6); see NotificationsController.
@UseFilters(NotificationsExceptionFilter)
@UsePipes(createNotificationsValidationPipe())
export class MessagesController {
  constructor(private readonly messages: MessagesService) {}

  /** A page of the environment's messages, newest first. */
  @Get()
  @ApiOperation({
    operationId: 'MessagesController_getMessages',
    summary: 'List all messages',
    description:
      'The messages of the caller\'s environment (deleted ones excluded), newest first, offset-paginated with ' +
      '`page` and `limit`; `hasMore` tells whether another page follows. Filters: `channel`, `subscriberId`, ' +
      `\`transactionId\` (one or several), \`contextKeys\` (exact set). \`totalCount\` is counted up to ${LIST_COUNT_CAP}.`,
  })
  @ApiOkResponse({ type: MessagesResponseDto })
  async getMessages(@Principal() principal: NotificationsPrincipal, @Query() query: ListMessagesQueryDto): Promise<MessagesResponseDto> {
    const page = await this.messages.list(principal.environmentId, query);
    return { totalCount: page.totalCount, hasMore: page.hasMore, data: page.data.map(toMessageResponse), pageSize: page.pageSize, page: page.page };
  }
}
