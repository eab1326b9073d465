import type { ChannelType, StepType, TimeUnit } from '../common/enums';
import type { ModuleRef } from '@nestjs/core';
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
 * What a `custom` step's handler receives. The handler runs inside the worker with the host's
 * dependency injection at hand (`moduleRef.get(MyService, { strict: false })`).
 * @publicApi
 */
export interface CustomStepContext {
  environmentId: string;
  transactionId: string;
  /** The workflow's trigger identifier. */
  workflowIdentifier: string;
  subscriber: Record<string, unknown>;
  /** The payload as the step sees it: the trigger's, plus what earlier custom steps returned. */
  payload: Record<string, unknown>;
  tenant: Record<string, unknown> | null;
  actor: Record<string, unknown> | null;
  /** Digest results, when a digest ran before this step. */
  step: { digest: boolean; events: Record<string, unknown>[]; total_count: number };
  moduleRef: ModuleRef;
}

/**
 * A `custom` step's code. What it returns (a plain object) is merged into the payload of the steps
 * after it; throwing fails the step.
 * @publicApi
 */
export type CustomStepHandler = (context: CustomStepContext) => Promise<Record<string, unknown> | void> | Record<string, unknown> | void;

/** An `http_request` step's request; every string is a Liquid template. */
export interface HttpRequestDefinition {
  url: string;
  /** @default 'POST' */
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  /** Sent as is after rendering (JSON bodies: write the JSON text). */
  body?: string;
  /** @default 10000 */
  timeoutMs?: number;
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
  request?: HttpRequestDefinition;
  /**
   * For `custom` steps of code-first workflows (`options.workflows`): the code to run. Functions are
   * not stored in the database, so a workflow defined at run time cannot carry one.
   */
  handler?: CustomStepHandler;
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
