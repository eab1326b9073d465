import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InjectNotificationsOptions } from '../../notifications.constants';
import type { ResolvedNotificationsOptions } from '../../notifications.options';
import type { CustomStepHandler } from '../../workflows/workflow-definition';
import { DETAILS, line } from '../execution-log';
import type { RunJob, StepHandler, StepOutcome } from '../run-context';
import { digestView, subscriberView } from '../template-context';

/**
 * `custom`: runs the handler of a code-first workflow's step with the host's DI at hand. What it
 * returns is merged into the payload of the later steps of the run.
 */
@Injectable()
export class CustomStep implements StepHandler {
  readonly types = ['custom'] as const;

  constructor(
    private readonly moduleRef: ModuleRef,
    @InjectNotificationsOptions() private readonly options: ResolvedNotificationsOptions,
  ) {}

  async run(jobs: RunJob[]): Promise<StepOutcome[]> {
    // Handlers are the host's code: one at a time per batch keeps their side effects in trigger order.
    const outcomes: StepOutcome[] = [];
    for (const run of jobs) outcomes.push(await this.runOne(run));
    return outcomes;
  }

  private async runOne(run: RunJob): Promise<StepOutcome> {
    const handler = this.handlerOf(run);
    if (!handler) {
      const error = `No handler for this custom step: give it a \`handler\` in the code-first definition of workflow "${run.job.identifier}"`;
      return { status: 'failed', details: [line.failed(DETAILS.customHandlerMissing, { raw: { error } })], error: { message: error } };
    }
    try {
      const result = await handler({
        environmentId: run.job.environmentId,
        transactionId: run.job.transactionId,
        workflowIdentifier: run.job.identifier,
        subscriber: subscriberView(run.subscriber),
        payload: structuredClone(run.job.payload),
        tenant: run.notification.tenant,
        actor: run.notification.actor,
        step: digestView(run),
        moduleRef: this.moduleRef,
      });
      const patch = result && typeof result === 'object' && !Array.isArray(result) ? (JSON.parse(JSON.stringify(result)) as Record<string, unknown>) : undefined;
      return {
        status: 'completed',
        details: [line.pending(DETAILS.startSending), line.success(DETAILS.customCompleted, { raw: patch ?? null })],
        ...(patch && { payloadPatch: patch }),
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { status: 'failed', details: [line.pending(DETAILS.startSending), line.failed(DETAILS.customFailed, { raw: { error: message } })], error: { message } };
    }
  }

  /** The handler of the code-first step at the same position as the job's step in the stored workflow. */
  private handlerOf(run: RunJob): CustomStepHandler | undefined {
    const definition = this.options.workflows.find((w) => w.identifier === run.job.identifier);
    const index = run.workflow?.stepIds.indexOf(run.step._id) ?? -1;
    const step = index >= 0 ? definition?.steps[index] : undefined;
    return step?.type === 'custom' ? step.handler : undefined;
  }
}
