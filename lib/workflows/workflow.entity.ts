import { ArrayType, Entity, type Opt, Property, Unique } from '@mikro-orm/core';
import { EnvironmentScopedEntity } from '../common/base.entity';
import type { ChannelType } from '../common/enums';
import type { StoredStep } from './workflow-definition';

/** Where a workflow was defined: in the host's code (`options.workflows`) or at run time. */
export type WorkflowOrigin = 'code' | 'api';

/**
 * A stored workflow. Its steps are kept as one JSON document: a workflow is always read whole, and
 * each job keeps its own snapshot of its step, so later edits never change a running chain.
 * @publicApi
 */
@Entity({ tableName: 'ntf_workflow' })
@Unique({ name: 'ntf_workflow_environment_identifier_unique', properties: ['environmentId', 'identifier'] })
export class WorkflowEntity extends EnvironmentScopedEntity {
  /** The trigger identifier events name (the SDK's `workflowId`). */
  @Property({ type: 'text' })
  identifier!: string;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  description: string & Opt = '';

  @Property({ type: 'boolean' })
  active: boolean & Opt = true;

  @Property({ type: 'boolean' })
  critical: boolean & Opt = false;

  @Property({ type: ArrayType, columnType: 'text[]' })
  tags: string[] & Opt = [];

  @Property({ type: 'json', fieldName: 'preference_settings' })
  preferenceSettings: Partial<Record<ChannelType, boolean>> & Opt = {};

  @Property({ type: 'json' })
  steps: StoredStep[] & Opt = [];

  @Property({ type: 'text' })
  origin: WorkflowOrigin & Opt = 'api';
}
