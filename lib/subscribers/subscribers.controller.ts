import { Body, Controller, HttpCode, Param, Patch, UseFilters, UseGuards, UseInterceptors, UsePipes } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { type NotificationsPrincipal, Principal } from '../auth/principal';
import { ApiErrorResponses } from '../common/api-responses.decorator';
import { NotificationsExceptionFilter } from '../common/errors/notifications-exception.filter';
import { createNotificationsValidationPipe } from '../common/validation.pipe';
import { IdempotencyInterceptor } from '../idempotency/idempotency.interceptor';
import { SubscriberResponseDto } from './dto/subscriber-response.dto';
import { UpdateSubscriberOnlineFlagRequestDto } from './dto/update-subscriber-online-flag.dto';
import { toSubscriberResponse } from './subscriber.mapper';
import { SubscribersService } from './subscribers.service';

/**
 * `/v1/subscribers/{subscriberId}/...` routes about the subscriber itself.
 * @publicApi
 */
@ApiTags('Subscribers')
@ApiSecurity('secretKey')
@ApiErrorResponses()
@Controller('v1/subscribers')
@UseGuards(ApiKeyGuard)
@UseInterceptors(IdempotencyInterceptor)
@UseFilters(NotificationsExceptionFilter)
@UsePipes(createNotificationsValidationPipe())
export class SubscribersController {
  constructor(private readonly subscribers: SubscribersService) {}

  @Patch(':subscriberId/online-status')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'SubscribersV1Controller_updateSubscriberOnlineFlag',
    summary: 'Update subscriber online status',
    description: 'Sets `isOnline`; going offline also sets `lastOnlineAt`.',
  })
  @ApiOkResponse({ type: SubscriberResponseDto })
  async updateOnlineStatus(
    @Principal() principal: NotificationsPrincipal,
    @Param('subscriberId') subscriberId: string,
    @Body() body: UpdateSubscriberOnlineFlagRequestDto,
  ): Promise<SubscriberResponseDto> {
    const subscriber = await this.subscribers.updateOnlineStatus(principal.environmentId, subscriberId, body.isOnline);
    return toSubscriberResponse(subscriber);
  }
}
