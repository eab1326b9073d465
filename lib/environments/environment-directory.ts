import { Injectable, NotFoundException } from '@nestjs/common';
import { NotificationsDatabase } from '../common/database';

/**
 * Answers "which organisation owns this environment?", which every write needs (each row carries
 * both ids). Both ids never change, so answers are cached for the life of the process.
 */
@Injectable()
export class EnvironmentDirectory {
  private readonly organizations = new Map<string, string>();

  constructor(private readonly db: NotificationsDatabase) {}

  /** @throws NotFoundException when the environment does not exist. */
  async getOrganizationId(environmentId: string): Promise<string> {
    const cached = this.organizations.get(environmentId);
    if (cached) return cached;
    const { rows } = await this.db.query<{ organization_id: string }>(
      'SELECT organization_id FROM ntf_environment WHERE id = $1',
      [environmentId],
    );
    if (!rows[0]) throw new NotFoundException('Environment not found');
    this.remember(environmentId, rows[0].organization_id);
    return rows[0].organization_id;
  }

  /** Records a pair learnt elsewhere (a freshly created environment). */
  remember(environmentId: string, organizationId: string): void {
    this.organizations.set(environmentId, organizationId);
  }
}
