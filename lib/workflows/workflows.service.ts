import { Injectable, Logger } from '@nestjs/common';
import { NotificationsDatabase } from '../common/database';
import { STEP_TYPES } from '../common/enums';
import { RequestValidationException } from '../common/errors/validation-errors';
import { generateId } from '../common/id';
import { EnvironmentDirectory } from '../environments/environment-directory';
import { InjectNotificationsOptions } from '../notifications.constants';
import type { ResolvedNotificationsOptions } from '../notifications.options';
import type { StoredStep, WorkflowDefinition } from './workflow-definition';
import { WorkflowEntity, type WorkflowOrigin } from './workflow.entity';

/**
 * Stores workflows: code-first ones from `options.workflows` (in every environment) and those defined
 * at run time with {@link upsert}.
 * @publicApi
 */
@Injectable()
export class WorkflowsService {
  private readonly logger = new Logger(WorkflowsService.name);

  constructor(
    private readonly db: NotificationsDatabase,
    private readonly directory: EnvironmentDirectory,
    @InjectNotificationsOptions() private readonly options: ResolvedNotificationsOptions,
  ) {}

  /**
   * Creates the workflow, or replaces the one with the same identifier. Steps keep their ids when a
   * step of the same type stays at the same position, so jobs of earlier runs still point at them.
   * @throws RequestValidationException when the definition is malformed.
   */
  async upsert(environmentId: string, definition: WorkflowDefinition, origin: WorkflowOrigin = 'api'): Promise<WorkflowEntity> {
    validateDefinition(definition);
    const organizationId = await this.directory.getOrganizationId(environmentId);
    const em = this.db.fork();
    const existing = await em.findOne(WorkflowEntity, { environmentId, identifier: definition.identifier });
    const steps = definition.steps.map((step, index): StoredStep => {
      const previous = existing?.steps[index];
      const keep = previous && previous.type === step.type;
      return {
        ...step,
        _id: keep ? previous._id : generateId(),
        _templateId: keep ? previous._templateId : generateId(),
        active: step.active ?? true,
        shouldStopOnFail: step.shouldStopOnFail ?? false,
        filters: step.filters ?? [],
      };
    });
    const fields = {
      name: definition.name,
      description: definition.description ?? '',
      active: definition.active ?? true,
      critical: definition.critical ?? false,
      tags: definition.tags ?? [],
      preferenceSettings: definition.preferenceSettings ?? {},
      steps,
      origin,
    };
    const workflow = existing
      ? em.assign(existing, fields)
      : em.create(WorkflowEntity, { environmentId, organizationId, identifier: definition.identifier, ...fields });
    await em.flush();
    return workflow;
  }

  /** The workflow with this trigger identifier, or null. */
  async findByIdentifier(environmentId: string, identifier: string): Promise<WorkflowEntity | null> {
    return this.db.fork().findOne(WorkflowEntity, { environmentId, identifier });
  }

  /** The environment's workflows, oldest first. */
  async list(environmentId: string): Promise<WorkflowEntity[]> {
    return this.db.fork().find(WorkflowEntity, { environmentId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  }

  /** Stores every code-first workflow in one environment. */
  async syncCodeFirst(environmentId: string): Promise<void> {
    for (const definition of this.options.workflows) {
      await this.upsert(environmentId, definition, 'code');
    }
  }

  /** Stores every code-first workflow in every environment (at boot). */
  async syncCodeFirstEverywhere(): Promise<void> {
    if (this.options.workflows.length === 0) return;
    const { rows } = await this.db.query<{ id: string }>('SELECT id FROM ntf_environment ORDER BY id');
    for (const { id } of rows) await this.syncCodeFirst(id);
    this.logger.log(`Synced ${this.options.workflows.length} code-first workflow(s) into ${rows.length} environment(s)`);
  }
}

function validateDefinition(definition: WorkflowDefinition): void {
  const errors: Record<string, { messages: string[]; value?: unknown }> = {};
  if (typeof definition?.identifier !== 'string' || !definition.identifier.trim()) {
    errors.identifier = { messages: ['identifier must be a non-empty string'], value: definition?.identifier };
  }
  if (typeof definition?.name !== 'string' || !definition.name.trim()) {
    errors.name = { messages: ['name must be a non-empty string'], value: definition?.name };
  }
  if (!Array.isArray(definition?.steps)) {
    errors.steps = { messages: ['steps must be an array'], value: definition?.steps };
  } else {
    definition.steps.forEach((step, index) => {
      if (!step || !(STEP_TYPES as readonly string[]).includes(step.type) || step.type === ('trigger' as string)) {
        errors[`steps[${index}].type`] = {
          messages: [`type must be one of: ${STEP_TYPES.filter((t) => t !== 'trigger').join(', ')}`],
          value: step?.type,
        };
      }
    });
  }
  if (Object.keys(errors).length) throw new RequestValidationException(errors);
}
