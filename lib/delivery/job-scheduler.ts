import { Injectable } from '@nestjs/common';
import { NotificationsDatabase } from '../common/database';
import type { JobStatus, TimeUnit } from '../common/enums';
import { TIME_UNITS } from '../common/enums';
import type { StepMetadata } from '../workflows/workflow-definition';
import { DETAILS, type DetailDraft, line } from './execution-log';
import type { RunJob, StepBatch } from './run-context';
import { addDuration, nextTimedDigest, scheduledDelayMs } from './schedule';
import { explainFilters } from './step-conditions';
import { subscriberView } from './template-context';

/** What happens to the next job of a run (the reference's `AddJob`, behavior.md §8.5). */
export interface ScheduleDecision {
  run: RunJob;
  /**
   * `queued`: due now. `delayed`: due at `startAfter`. `canceled` (filtered out) and `skipped`
   * (first backoff event): done without running, the run goes on with the job after it. `merged`:
   * folded into another run's open digest, this run ends. `failed`: its configuration cannot be
   * scheduled, the run ends.
   */
  status: Extract<JobStatus, 'queued' | 'delayed' | 'canceled' | 'skipped' | 'merged' | 'failed'>;
  details: DetailDraft[];
  startAfter?: Date;
  /** `merged`: the digest job and notification this run was merged into. */
  mergedInto?: { jobId: string; notificationId: string };
  error?: { message: string; raw?: unknown };
}

/** A digest's timing: how long its window stays open, and the backoff window if it has one. */
interface DigestPlan {
  waitMs: number;
  backoffMs: number | null;
}

/**
 * Decides, for the next job of each run, whether it runs now, later (delay, digest window) or not at
 * all (filtered, merged into an open digest, first backoff event), writing the reference's log lines.
 * All digest decisions of a batch take one advisory-lock statement and two look-ups, whatever the
 * number of runs.
 */
@Injectable()
export class JobScheduler {
  constructor(private readonly db: NotificationsDatabase) {}

  async schedule(runs: RunJob[], batch: StepBatch, now = new Date()): Promise<ScheduleDecision[]> {
    const decisions: ScheduleDecision[] = new Array(runs.length);
    const digests: Array<{ index: number; run: RunJob; plan: DigestPlan }> = [];
    runs.forEach((run, index) => {
      const { job, step } = run;
      const filterable = job.type === 'delay' || job.type === 'digest';
      if (filterable && step.filters?.length) {
        const evaluation = explainFilters(step.filters, { subscriber: subscriberView(run.subscriber), payload: job.payload });
        if (!evaluation.passed) {
          decisions[index] = { run, status: 'canceled', details: [line.success(DETAILS.filtered, { raw: { filters: step.filters, evaluation } })] };
          return;
        }
      }
      if (job.type === 'delay') {
        decisions[index] = this.scheduleDelay(run, now);
        return;
      }
      if (job.type === 'digest') {
        try {
          digests.push({ index, run, plan: digestPlan(run, now) });
        } catch (error) {
          const message = (error as Error).message;
          decisions[index] = { run, status: 'failed', details: [line.failed(DETAILS.invalidDigest, { raw: { error: message } })], error: { message } };
        }
        return;
      }
      decisions[index] = { run, status: 'queued', details: [] };
    });
    if (digests.length) {
      const digestDecisions = await this.scheduleDigests(digests, batch, now);
      digests.forEach((digest, i) => (decisions[digest.index] = digestDecisions[i]));
    }
    // The reference writes `Step queued` last in every case, even after a merge or a skip, but not
    // after a delay or digest it could not schedule: there it rethrows before reaching that line.
    for (const decision of decisions) if (decision.status !== 'failed') decision.details.push(line.pending(DETAILS.stepQueued));
    return decisions;
  }

  private scheduleDelay(run: RunJob, now: Date): ScheduleDecision {
    try {
      const waitMs = delayMs(run, now);
      return { run, status: 'delayed', startAfter: new Date(now.getTime() + waitMs), details: [line.pending(DETAILS.stepDelayed, { raw: { delay: waitMs } })] };
    } catch (error) {
      const message = (error as Error).message;
      return { run, status: 'failed', details: [line.failed(DETAILS.invalidDelay, { raw: { error: message } })], error: { message } };
    }
  }

  /**
   * Merge-or-create for every digest of the batch: under an advisory lock per digest key (so two
   * workers never both open a window for one key), a run joins the key's open (`delayed`) digest if
   * there is one, else opens its own. With backoff, a run with no earlier event in the backoff window
   * is not digested at all.
   */
  private async scheduleDigests(digests: Array<{ run: RunJob; plan: DigestPlan }>, batch: StepBatch, now: Date): Promise<ScheduleDecision[]> {
    const keyOf = ({ job, step }: RunJob) => `digest:${job.environmentId}:${job.workflowId}:${job.subscriberId}:${step._id}:${job.groupKey ?? ''}`;
    const keys = digests.map(({ run }) => keyOf(run));
    await this.db.query('SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM (SELECT DISTINCT unnest($1::text[]) AS k ORDER BY 1) keys', [keys], batch.em);
    const columns = [
      digests.map((_, i) => i),
      digests.map(({ run }) => run.job.environmentId),
      digests.map(({ run }) => run.job.workflowId),
      digests.map(({ run }) => run.job.subscriberId),
      digests.map(({ run }) => run.step._id),
      digests.map(({ run }) => run.job.groupKey ?? ''),
    ];
    const open = await this.db.query<{ i: number; id: string; notification_id: string }>(
      `SELECT DISTINCT ON (q.i) q.i, j.id, j.notification_id
         FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS q(i, env, wf, sub, step, key)
         JOIN ntf_job j ON j.environment_id = q.env AND j.workflow_id = q.wf AND j.subscriber_id = q.sub
                       AND j.type = 'digest' AND j.group_key = q.key AND j.status = 'delayed' AND j.step->>'_id' = q.step
        ORDER BY q.i, j.created_at, j.id`,
      columns,
      batch.em,
    );
    const openByIndex = new Map(open.rows.map((row) => [row.i, row]));
    const backoff = digests.some(({ plan }) => plan.backoffMs !== null)
      ? await this.db.query<{ i: number }>(
          // An earlier event of the same key inside the backoff window: the digest of an earlier run.
          `SELECT q.i
             FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[], $9::timestamptz[]) AS q(i, env, wf, sub, step, key, self, created, since)
            WHERE q.since IS NOT NULL AND EXISTS (
              SELECT 1 FROM ntf_job j
               WHERE j.environment_id = q.env AND j.workflow_id = q.wf AND j.subscriber_id = q.sub AND j.type = 'digest'
                 AND j.group_key = q.key AND j.step->>'_id' = q.step AND j.id <> q.self
                 AND j.created_at >= q.since AND (j.created_at, j.id) < (q.created, q.self))`,
          [
            ...columns,
            digests.map(({ run }) => run.job.id),
            digests.map(({ run }) => run.job.createdAt),
            digests.map(({ run, plan }) => (plan.backoffMs === null ? null : new Date(run.job.createdAt.getTime() - plan.backoffMs))),
          ],
          batch.em,
        )
      : { rows: [] };
    const hasEarlierEvent = new Set(backoff.rows.map((row) => row.i));

    // Windows opened by this batch: a later run of the same key in the same batch joins them.
    const openedHere = new Map<string, { jobId: string; notificationId: string }>();
    return digests.map(({ run, plan }, i): ScheduleDecision => {
      const key = keys[i];
      if (plan.backoffMs !== null && !hasEarlierEvent.has(i) && !openedHere.has(key)) {
        return { run, status: 'skipped', details: [line.success(DETAILS.digestSkippedBackoff)] };
      }
      const target = openedHere.get(key) ?? (openByIndex.get(i) && { jobId: openByIndex.get(i)!.id, notificationId: openByIndex.get(i)!.notification_id });
      if (target) {
        return { run, status: 'merged', mergedInto: target, details: [line.success(DETAILS.digestMerged, { raw: { digestJobId: target.jobId } })] };
      }
      openedHere.set(key, { jobId: run.job.id, notificationId: run.job.notificationId });
      return {
        run,
        status: 'delayed',
        startAfter: new Date(now.getTime() + plan.waitMs),
        details: [line.pending(DETAILS.stepDigested, { raw: { delay: plan.waitMs } })],
      };
    });
  }
}

/** How long a delay step waits: `overrides.delay` ({amount, unit}), else its metadata. */
function delayMs(run: RunJob, now: Date): number {
  const metadata: StepMetadata = run.step.metadata ?? {};
  if (metadata.type === 'scheduled') {
    if (!metadata.delayPath) throw new Error('A scheduled delay needs metadata.delayPath');
    return scheduledDelayMs(run.job.payload, metadata.delayPath, now);
  }
  const override = (run.job.overrides as { delay?: { amount?: unknown; unit?: unknown } }).delay;
  const { amount, unit } = isDuration(override) ? override : metadata;
  if (!isDuration({ amount, unit })) throw new Error('A regular delay needs a positive metadata.amount and a metadata.unit of ' + TIME_UNITS.join(', '));
  return addDuration(now, amount as number, unit as TimeUnit).getTime() - now.getTime();
}

function digestPlan(run: RunJob, now: Date): DigestPlan {
  const metadata: StepMetadata = run.step.metadata ?? {};
  let waitMs: number;
  if (metadata.type === 'timed') {
    waitMs = nextTimedDigest(metadata.timed, metadata.unit, metadata.amount, now, timezoneOf(run)).getTime() - now.getTime();
  } else {
    const window = { amount: metadata.amount, unit: metadata.unit };
    if (!isDuration(window)) throw new Error('A digest needs a positive metadata.amount and a metadata.unit of ' + TIME_UNITS.join(', '));
    waitMs = addDuration(now, window.amount, window.unit).getTime() - now.getTime();
  }
  let backoffMs: number | null = null;
  if (metadata.type === 'backoff' || metadata.backoff) {
    const backoff = { amount: metadata.backoffAmount ?? metadata.amount, unit: metadata.backoffUnit ?? metadata.unit };
    if (!isDuration(backoff)) throw new Error('A backoff digest needs a positive metadata.backoffAmount and metadata.backoffUnit');
    backoffMs = addDuration(now, backoff.amount as number, backoff.unit as TimeUnit).getTime() - now.getTime();
  }
  return { waitMs, backoffMs };
}

/** The subscriber's time zone for timed digests; UTC when it has none or an unknown one (a profile typo must not break delivery). */
function timezoneOf(run: RunJob): string {
  const zone = run.subscriber?.timezone;
  if (!zone) return 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    return 'UTC';
  }
}

function isDuration(value: unknown): value is { amount: number; unit: TimeUnit } {
  const candidate = value as { amount?: unknown; unit?: unknown } | undefined;
  return (
    typeof candidate?.amount === 'number' &&
    Number.isFinite(candidate.amount) &&
    candidate.amount > 0 &&
    (TIME_UNITS as readonly string[]).includes(candidate.unit as string)
  );
}
