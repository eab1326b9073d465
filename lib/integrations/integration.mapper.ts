import type { CredentialsDto } from './dto/credentials.dto';
import type { IntegrationResponseDto } from './dto/integration-response.dto';
import type { IntegrationEntity } from './integration.entity';

/**
 * Entity → `IntegrationResponseDto`. `credentials` is included only when given (decrypted, for session
 * callers); API-key callers never receive the field.
 */
export function toIntegrationResponse(integration: IntegrationEntity, credentials?: CredentialsDto): IntegrationResponseDto {
  return {
    _id: integration.id,
    _environmentId: integration.environmentId,
    _organizationId: integration.organizationId,
    name: integration.name,
    identifier: integration.identifier,
    providerId: integration.providerId,
    ...(integration.channel && { channel: integration.channel }),
    kind: integration.kind,
    ...(credentials && { credentials }),
    configurations: integration.configurations,
    active: integration.active,
    deleted: integration.deleted,
    ...(integration.deletedAt && { deletedAt: integration.deletedAt.toISOString() }),
    ...(integration.deletedBy && { deletedBy: integration.deletedBy }),
    primary: integration.primary,
    conditions: integration.conditions,
  };
}
