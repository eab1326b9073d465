import { Injectable } from '@nestjs/common';
import { DETAILS, line } from '../execution-log';
import type { RunJob, StepHandler, StepOutcome } from '../run-context';

/** The synthetic first job of every run: it only starts the chain (reference/behavior.md §8.8). */
@Injectable()
export class TriggerStep implements StepHandler {
  readonly types = ['trigger'] as const;

  async run(jobs: RunJob[]): Promise<StepOutcome[]> {
    return jobs.map(() => ({ status: 'completed', details: [line.pending(DETAILS.startSending)] }));
  }
}
