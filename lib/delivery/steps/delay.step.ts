import { Injectable } from '@nestjs/common';
import { DETAILS, line } from '../execution-log';
import type { RunJob, StepHandler, StepOutcome } from '../run-context';

/**
 * `delay`: the wait itself is the queue entry's start time (set when the job was scheduled, see
 * JobScheduler); when the entry comes due, the delay is over.
 */
@Injectable()
export class DelayStep implements StepHandler {
  readonly types = ['delay'] as const;

  async run(jobs: RunJob[]): Promise<StepOutcome[]> {
    return jobs.map(() => ({ status: 'completed', details: [line.success(DETAILS.delayFinished)] }));
  }
}
