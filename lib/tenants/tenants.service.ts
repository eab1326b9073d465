import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Injectable } from '@nestjs/common';
import { NotificationsDatabase } from '../common/database';
import { RequestValidationException } from '../common/errors/validation-errors';
import { EnvironmentDirectory } from '../environments/environment-directory';
import { TenantEntity } from './tenant.entity';

/** What a tenant is created with. */
export interface CreateTenantInput {
  identifier: string;
  name?: string;
  data?: Record<string, unknown>;
}

/**
 * Tenants of an environment.
 * @publicApi
 */
@Injectable()
export class TenantsService {
  constructor(
    private readonly db: NotificationsDatabase,
    private readonly directory: EnvironmentDirectory,
  ) {}

  /**
   * Creates a tenant.
   * @throws RequestValidationException when the identifier is already used in the environment.
   */
  async create(environmentId: string, input: CreateTenantInput): Promise<TenantEntity> {
    const organizationId = await this.directory.getOrganizationId(environmentId);
    const em = this.db.fork();
    const tenant = em.create(TenantEntity, {
      environmentId,
      organizationId,
      identifier: input.identifier,
      name: input.name ?? null,
      data: input.data ?? null,
    });
    try {
      await em.flush();
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) {
        throw RequestValidationException.forField('identifier', `identifier "${input.identifier}" is already used in this environment`, input.identifier);
      }
      throw error;
    }
    return tenant;
  }

  /** The tenant with this identifier, or null. */
  async findByIdentifier(environmentId: string, identifier: string): Promise<TenantEntity | null> {
    return this.db.fork().findOne(TenantEntity, { environmentId, identifier });
  }
}
