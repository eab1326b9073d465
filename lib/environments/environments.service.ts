import { randomBytes } from 'node:crypto';
import { Injectable, NotFoundException } from '@nestjs/common';
import { hashApiKey } from '../auth/hashed-api-key.validator';
import { NotificationsDatabase } from '../common/database';
import { generateId } from '../common/id';
import { WorkflowsService } from '../workflows/workflows.service';
import { ApiKeyEntity } from './api-key.entity';
import { EnvironmentEntity } from './environment.entity';
import { EnvironmentDirectory } from './environment-directory';

/** What {@link EnvironmentsService.create} returns: the environment and its first key, in plaintext. */
export interface CreatedEnvironment {
  environment: EnvironmentEntity;
  /** The plaintext API key. Only its hash is stored: show it once, then it cannot be read again. */
  apiKey: string;
}

/**
 * Environments and their API keys.
 * @publicApi
 */
@Injectable()
export class EnvironmentsService {
  constructor(
    private readonly db: NotificationsDatabase,
    private readonly directory: EnvironmentDirectory,
    private readonly workflows: WorkflowsService,
  ) {}

  /**
   * Creates an environment (in a new organisation unless one is given) with one API key, and stores
   * the code-first workflows in it.
   */
  async create(input: { name: string; organizationId?: string }): Promise<CreatedEnvironment> {
    const em = this.db.fork();
    const environment = em.create(EnvironmentEntity, { name: input.name, organizationId: input.organizationId ?? generateId() });
    const apiKey = newApiKeySecret();
    em.create(ApiKeyEntity, { environmentId: environment.id, organizationId: environment.organizationId, hash: hashApiKey(apiKey) });
    await em.flush();
    this.directory.remember(environment.id, environment.organizationId);
    await this.workflows.syncCodeFirst(environment.id);
    return { environment, apiKey };
  }

  /** Adds an API key to an environment and returns it in plaintext (shown once). */
  async createApiKey(environmentId: string): Promise<string> {
    const organizationId = await this.directory.getOrganizationId(environmentId);
    const apiKey = newApiKeySecret();
    await this.db.fork().insert(ApiKeyEntity, {
      id: generateId(),
      environmentId,
      organizationId,
      hash: hashApiKey(apiKey),
      createdAt: new Date(),
      revokedAt: null,
    });
    return apiKey;
  }

  /** Revokes a key. Instances that cached it accept it for at most `auth.apiKeyCacheSeconds` more. */
  async revokeApiKey(environmentId: string, apiKey: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      'UPDATE ntf_api_key SET revoked_at = now() WHERE environment_id = $1 AND hash = $2 AND revoked_at IS NULL',
      [environmentId, hashApiKey(apiKey)],
    );
    return (rowCount ?? 0) > 0;
  }

  /** @throws NotFoundException when there is no such environment. */
  async findOne(environmentId: string): Promise<EnvironmentEntity> {
    const environment = await this.db.fork().findOne(EnvironmentEntity, { id: environmentId });
    if (!environment) throw new NotFoundException('Environment not found');
    return environment;
  }

  /** All environments, oldest first. */
  async list(): Promise<EnvironmentEntity[]> {
    return this.db.fork().find(EnvironmentEntity, {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
  }

}

/** 16 random bytes as 32 hex characters, like the reference service's keys. */
function newApiKeySecret(): string {
  return randomBytes(16).toString('hex');
}
