import { Body, Controller, HttpCode, Post, UseFilters, UseGuards, UseInterceptors, UsePipes } from '@nestjs/common';
import { ApiCreatedResponse, ApiExtension, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { type NotificationsPrincipal, Principal } from '../auth/principal';
import { ApiErrorResponses } from '../common/api-responses.decorator';
import { NotificationsExceptionFilter } from '../common/errors/notifications-exception.filter';
import { createNotificationsValidationPipe } from '../common/validation.pipe';
import { IdempotencyInterceptor } from '../idempotency/idempotency.interceptor';
import { BulkTriggerEventDto } from './dto/trigger-event-request.dto';
import { TriggerEventResponseDto } from './dto/trigger-event-response.dto';
import { EventsService } from './events.service';
import type { TriggerEventInput } from './trigger-event';

/**
 * `/v1/events/...`: triggering workflows.
 * @publicApi
 */
@ApiTags('Events')
@ApiSecurity('secretKey')
@ApiErrorResponses()
@Controller('v1/events')
@UseGuards(ApiKeyGuard)
@UseInterceptors(IdempotencyInterceptor)
@UseFilters(NotificationsExceptionFilter)
@UsePipes(createNotificationsValidationPipe())
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Post('trigger/bulk')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'EventsController_triggerBulk',
    summary: 'Bulk trigger event',
    description:
      'Triggers up to 100 events at once. Each event gets its own result, in the order of the request; a failing ' +
      'event never fails the others. `processed` means the notifications and their jobs are stored and queued.',
  })
  @ApiExtension('x-speakeasy-name-override', 'triggerBulk')
  @ApiCreatedResponse({ type: [TriggerEventResponseDto] })
  async triggerBulk(@Principal() principal: NotificationsPrincipal, @Body() body: BulkTriggerEventDto): Promise<TriggerEventResponseDto[]> {
    // Events are checked one by one by the service (their fields are typed `unknown` until then).
    return this.events.triggerBulk(principal.environmentId, body.events as TriggerEventInput[]);
  }
}
