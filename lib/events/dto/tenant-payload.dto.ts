import { ApiPropertyOptional } from '@nestjs/swagger';

/**
 * A tenant named by a trigger as an object. The tenant must exist; `name` and `data`, when given,
 * update it.
 * @publicApi
 */
export class TenantPayloadDto {
  @ApiPropertyOptional({ type: String, description: 'Identifier of an existing tenant of the environment.' })
  readonly identifier?: string;

  @ApiPropertyOptional({ type: String, description: 'New name of the tenant.' })
  readonly name?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'New data of the tenant (replaces the stored data).' })
  readonly data?: Record<string, unknown>;
}
