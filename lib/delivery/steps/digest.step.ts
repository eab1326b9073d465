import { Injectable } from '@nestjs/common';
import { NotificationsDatabase } from '../../common/database';
import { DETAILS, line } from '../execution-log';
import type { RunJob, StepBatch, StepHandler, StepOutcome } from '../run-context';

/**
 * `digest`, when its window closes: the events are this run's payload followed by the payloads of
 * every run merged into it (JobScheduler merged them while the window was open), oldest first. The
 * later steps of the run see them as `step.events` / `step.total_count`.
 */
@Injectable()
export class DigestStep implements StepHandler {
  readonly types = ['digest'] as const;

  constructor(private readonly db: NotificationsDatabase) {}

  async run(jobs: RunJob[], batch: StepBatch): Promise<StepOutcome[]> {
    // Every merged run of every digest of the batch, in one statement.
    const { rows } = await this.db.query<{ merged_digest_id: string; payload: Record<string, unknown> }>(
      `SELECT merged_digest_id, payload FROM ntf_job
        WHERE environment_id = ANY($1::text[]) AND merged_digest_id = ANY($2::text[])
        ORDER BY created_at, id`,
      [[...new Set(jobs.map((run) => run.job.environmentId))], jobs.map((run) => run.job.id)],
      batch.em,
    );
    const merged = new Map<string, Record<string, unknown>[]>();
    for (const row of rows) merged.set(row.merged_digest_id, [...(merged.get(row.merged_digest_id) ?? []), row.payload]);
    return jobs.map((run) => {
      const events = [run.job.payload, ...(merged.get(run.job.id) ?? [])];
      return {
        status: 'completed',
        digestEvents: events,
        details: [line.pending(DETAILS.startDigesting), line.success(DETAILS.digestTriggered, { raw: events })],
      };
    });
  }
}
