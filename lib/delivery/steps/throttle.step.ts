import { Injectable } from '@nestjs/common';
import { NotificationsDatabase } from '../../common/database';
import type { TimeUnit } from '../../common/enums';
import { DETAILS, line } from '../execution-log';
import type { RunJob, StepBatch, StepHandler, StepOutcome } from '../run-context';
import { addDuration } from '../schedule';

/** A throttle step's limit: at most `threshold` runs per `amount` `unit`. */
interface ThrottleLimit {
  threshold: number;
  amount: number;
  unit: TimeUnit;
}

/**
 * `throttle`: at most `threshold` runs of the step per window for one subscriber (and throttle key
 * value); a run over the limit is `skipped` and so is the rest of its workflow.
 *
 * Counting and passing must be atomic across workers, so the batch takes a transaction-scoped advisory
 * lock per (environment, workflow, subscriber, key) — all of them, sorted, in one statement — before
 * counting with one statement.
 */
@Injectable()
export class ThrottleStep implements StepHandler {
  readonly types = ['throttle'] as const;

  constructor(private readonly db: NotificationsDatabase) {}

  async run(jobs: RunJob[], batch: StepBatch): Promise<StepOutcome[]> {
    const now = new Date();
    const keyOf = (run: RunJob) => `throttle:${run.job.environmentId}:${run.job.workflowId}:${run.job.subscriberId}:${run.step._id}:${run.job.groupKey ?? ''}`;
    const limits = jobs.map((run) => limitOf(run));
    const valid = jobs.filter((_, i) => limits[i]);
    if (valid.length) {
      await this.db.query(
        'SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM (SELECT DISTINCT unnest($1::text[]) AS k ORDER BY 1) keys',
        [valid.map(keyOf)],
        batch.em,
      );
    }
    const since = jobs.map((run, i) => (limits[i] ? addDuration(now, -limits[i].amount, limits[i].unit) : now));
    const { rows } = valid.length
      ? await this.db.query<{ i: number; count: number }>(
          `SELECT q.i, (SELECT count(*) FROM ntf_job j
                         WHERE j.environment_id = q.env AND j.workflow_id = q.wf AND j.subscriber_id = q.sub
                           AND j.type = 'throttle' AND j.group_key = q.key AND j.status = 'completed'
                           AND j.step->>'_id' = q.step AND j.updated_at >= q.since)::int AS count
             FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[]) AS q(i, env, wf, sub, key, step, since)`,
          [
            jobs.map((_, i) => i).filter((i) => limits[i]),
            valid.map((run) => run.job.environmentId),
            valid.map((run) => run.job.workflowId),
            valid.map((run) => run.job.subscriberId),
            valid.map((run) => run.job.groupKey ?? ''),
            valid.map((run) => run.step._id),
            jobs.map((_, i) => since[i]).filter((_, i) => limits[i]),
          ],
          batch.em,
        )
      : { rows: [] };
    const counts = new Map<string, number>();
    rows.forEach((row) => counts.set(keyOf(jobs[row.i]), Math.max(counts.get(keyOf(jobs[row.i])) ?? 0, row.count)));
    return jobs.map((run, i) => {
      const limit = limits[i];
      if (!limit) {
        return { status: 'failed', details: [line.failed(DETAILS.invalidThrottle, { raw: { error: 'throttle needs metadata.threshold, amount and unit' } })], error: { message: 'Invalid throttle configuration' } };
      }
      // Runs of this batch count too: two events in one batch must not both pass a limit of one.
      const key = keyOf(run);
      const count = counts.get(key) ?? 0;
      const raw = { threshold: limit.threshold, window: { amount: limit.amount, unit: limit.unit }, count };
      if (count >= limit.threshold) return { status: 'skipped', halt: 'skipped', details: [line.success(DETAILS.throttled, { raw })] };
      counts.set(key, count + 1);
      return { status: 'completed', details: [line.success(DETAILS.throttlePassed, { raw })] };
    });
  }
}

function limitOf(run: RunJob): ThrottleLimit | null {
  const { threshold, amount, unit } = run.step.metadata ?? {};
  if (typeof threshold !== 'number' || threshold < 1 || typeof amount !== 'number' || amount <= 0 || !unit) return null;
  return { threshold, amount, unit };
}
