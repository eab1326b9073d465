import type { ChannelType, StepType, TimeUnit } from '../common/enums';
import type { StepFilter } from '../common/step-filter';

/** The message a channel step renders (Liquid templates). */
export interface StepTemplate {
  subject?: string;
  content?: string;
  title?: string;
  cta?: { type?: 'redirect'; data?: { url?: string } };
}

/** Digest, delay and throttle settings of a step; which fields apply depends on the step type. */
export interface StepMetadata {
  type?: 'regular' | 'backoff' | 'timed' | 'scheduled';
  amount?: number;
  unit?: TimeUnit;
  digestKey?: string;
  backoff?: boolean;
  backoffAmount?: number;
  backoffUnit?: TimeUnit;
  updateMode?: boolean;
  delayPath?: string;
  timed?: {
    atTime?: string;
    weekDays?: string[];
    monthDays?: number[];
    ordinal?: string;
    ordinalValue?: string;
    monthlyType?: 'each' | 'on';
    cronExpression?: string;
  };
  /** Throttle: at most `threshold` runs per window. */
  threshold?: number;
  throttleKey?: string;
  [key: string]: unknown;
}

/**
 * One step of a workflow, as a host defines it.
 * @publicApi
 */
export interface StepDefinition {
  type: Exclude<StepType, 'trigger'>;
  name?: string;
  active?: boolean;
  shouldStopOnFail?: boolean;
  filters?: StepFilter[];
  template?: StepTemplate;
  metadata?: StepMetadata;
  /** Send through this integration instead of the environment's primary one of the channel. */
  integrationIdentifier?: string;
  /** For `http_request` steps: the request to make. */
  request?: { url: string; method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number };
}

/**
 * A workflow: what happens, step by step, when an event of this `identifier` is triggered.
 * @publicApi
 */
export interface WorkflowDefinition {
  identifier: string;
  name: string;
  description?: string;
  /** Default true. An inactive workflow answers triggers with `trigger_not_active`. */
  active?: boolean;
  /** Critical workflows ignore preference settings. */
  critical?: boolean;
  tags?: string[];
  /** Channels this workflow may use; a channel set to false is skipped. */
  preferenceSettings?: Partial<Record<ChannelType, boolean>>;
  steps: StepDefinition[];
}

/** A stored step: the definition plus the ids the contract exposes on jobs. */
export interface StoredStep extends StepDefinition {
  _id: string;
  _templateId: string;
  active: boolean;
  shouldStopOnFail: boolean;
  filters: StepFilter[];
}
