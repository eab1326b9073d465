import { Body, Controller, HttpCode, Param, Post, UseFilters, UseGuards, UseInterceptors, UsePipes } from '@nestjs/common';
import { ApiCreatedResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { type NotificationsPrincipal, Principal } from '../auth/principal';
import { ApiErrorResponses } from '../common/api-responses.decorator';
import { NotificationsExceptionFilter } from '../common/errors/notifications-exception.filter';
import { createNotificationsValidationPipe } from '../common/validation.pipe';
import { IdempotencyInterceptor } from '../idempotency/idempotency.interceptor';
import { MessageMarkAsRequestDto } from './dto/message-mark-as-request.dto';
import { MessageResponseDto } from './dto/message-response.dto';
import { toMessageResponse } from './message.mapper';
import { MessagesService } from './messages.service';

/**
 * `/v1/subscribers/{subscriberId}/messages/...`: a subscriber's in-app messages.
 * @publicApi
 */
@ApiTags('Subscribers')
@ApiSecurity('secretKey')
@ApiErrorResponses()
@Controller('v1/subscribers/:subscriberId/messages')
@UseGuards(ApiKeyGuard)
@UseInterceptors(IdempotencyInterceptor)
@UseFilters(NotificationsExceptionFilter)
@UsePipes(createNotificationsValidationPipe())
export class SubscriberMessagesController {
  constructor(private readonly messages: MessagesService) {}

  @Post('mark-as')
  // 201, not 200: the SDK accepts nothing else for this operation (reference/behavior.md §9.3).
  @HttpCode(201)
  @ApiOperation({
    operationId: 'SubscribersV1Controller_markMessagesAs',
    summary: 'Update notifications state',
    description:
      'Marks messages of the subscriber as `read`, `seen`, `unread` or `unseen` and returns the updated messages, ' +
      'oldest first. `messageId` is one id, a comma-separated list, or an array; ids of messages that do not ' +
      'exist or belong to another subscriber are skipped.',
    deprecated: true,
  })
  @ApiCreatedResponse({ type: [MessageResponseDto] })
  async markAs(
    @Principal() principal: NotificationsPrincipal,
    @Param('subscriberId') subscriberId: string,
    @Body() body: MessageMarkAsRequestDto,
  ): Promise<MessageResponseDto[]> {
    const messages = await this.messages.markAs(principal.environmentId, subscriberId, body.messageId, body.markAs);
    return messages.map(toMessageResponse);
  }
}
