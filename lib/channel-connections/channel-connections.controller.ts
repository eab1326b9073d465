import { Controller, Get, Query, UseFilters, UseGuards, UsePipes } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { type NotificationsPrincipal, Principal } from '../auth/principal';
import { ApiErrorResponses } from '../common/api-responses.decorator';
import { NotificationsExceptionFilter } from '../common/errors/notifications-exception.filter';
import { createNotificationsValidationPipe } from '../common/validation.pipe';
import { toListChannelConnectionsResponse } from './channel-connection.mapper';
import { ChannelConnectionsService } from './channel-connections.service';
import { ListChannelConnectionsQueryDto } from './dto/list-channel-connections-query.dto';
import { ListChannelConnectionsResponseDto } from './dto/list-channel-connections-response.dto';

/**
 * `GET /v1/channel-connections`.
 * @publicApi
 */
@ApiTags('Channel Connections')
@ApiSecurity('secretKey')
@ApiErrorResponses()
@Controller('v1/channel-connections')
@UseGuards(ApiKeyGuard)
// No IdempotencyInterceptor: GET ignores `Idempotency-Key` (DESIGN §6); see IntegrationsController.
@UseFilters(NotificationsExceptionFilter)
@UsePipes(createNotificationsValidationPipe())
export class ChannelConnectionsController {
  constructor(private readonly connections: ChannelConnectionsService) {}

  @Get()
  @ApiOperation({
    operationId: 'ChannelConnectionsController_listChannelConnections',
    summary: 'List all channel connections',
    description:
      'The channel connections of the caller\'s environment, keyset-paginated: `next` and `previous` are item ids ' +
      'to pass as `after` and `before`. An unknown cursor gives an empty page. API-key callers receive the tokens ' +
      'redacted (`auth.accessToken` is empty); session callers receive them decrypted.',
  })
  @ApiOkResponse({ type: ListChannelConnectionsResponseDto })
  async list(@Principal() principal: NotificationsPrincipal, @Query() query: ListChannelConnectionsQueryDto): Promise<ListChannelConnectionsResponseDto> {
    const page = await this.connections.list(principal.environmentId, query, { revealTokens: principal.scheme === 'Bearer' });
    return toListChannelConnectionsResponse(page);
  }
}
