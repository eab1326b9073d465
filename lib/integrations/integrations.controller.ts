import { Controller, Get, UseFilters, UseGuards, UsePipes } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiKeyGuard } from '../auth/api-key.guard';
import { type NotificationsPrincipal, Principal } from '../auth/principal';
import { ApiErrorResponses } from '../common/api-responses.decorator';
import { NotificationsExceptionFilter } from '../common/errors/notifications-exception.filter';
import { createNotificationsValidationPipe } from '../common/validation.pipe';
import type { CredentialsDto } from './dto/credentials.dto';
import { IntegrationResponseDto } from './dto/integration-response.dto';
import { toIntegrationResponse } from './integration.mapper';
import { IntegrationsService } from './integrations.service';

/**
 * `GET /v1/integrations`.
 * @publicApi
 */
@ApiTags('Integrations')
@ApiSecurity('secretKey')
@ApiErrorResponses()
@Controller('v1/integrations')
@UseGuards(ApiKeyGuard)
// No IdempotencyInterceptor: GET ignores `Idempotency-Key` (DESIGN §6), and Nest wraps every intercepted
// call in rxjs and an AsyncResource, about 100 µs a request (bench/http-throughput.bench.ts).
@UseFilters(NotificationsExceptionFilter)
@UsePipes(createNotificationsValidationPipe())
export class IntegrationsController {
  constructor(private readonly integrations: IntegrationsService) {}

  @Get()
  @ApiOperation({
    operationId: 'IntegrationsController_listIntegrations',
    summary: 'List all integrations',
    description:
      'The integrations of the caller\'s environment, oldest first, deleted ones hidden. API-key callers receive ' +
      'no credentials; session callers see every environment of their organisation with decrypted credentials.',
  })
  @ApiOkResponse({ type: [IntegrationResponseDto] })
  async list(@Principal() principal: NotificationsPrincipal): Promise<IntegrationResponseDto[]> {
    if (principal.scheme === 'ApiKey') {
      const integrations = await this.integrations.listForEnvironment(principal.environmentId);
      return integrations.map((integration) => toIntegrationResponse(integration));
    }
    const integrations = await this.integrations.listForOrganization(principal.organizationId);
    return integrations.map((integration) =>
      toIntegrationResponse(integration, this.integrations.decryptCredentials(integration) as CredentialsDto),
    );
  }
}
