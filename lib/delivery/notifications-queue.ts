import { type BeforeApplicationShutdown, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import PgBoss from 'pg-boss';
import type { PoolClient } from 'pg';
import { NotificationsDatabase } from '../common/database';
import { InjectNotificationsOptions } from '../notifications.constants';
import type { ResolvedNotificationsOptions } from '../notifications.options';

/** The pg-boss queue that carries every job of every workflow run. */
export const JOBS_QUEUE = 'ntf_jobs';

/** A queue entry: "run this job (of this environment) at or after this time". */
export interface QueueEntry {
  environmentId: string;
  jobId: string;
  /** Not before this time (delays and digests); now when omitted. */
  startAfter?: Date;
}

/** The data of a pg-boss job of {@link JOBS_QUEUE}. */
export interface QueuedJobData {
  environmentId: string;
  jobId: string;
}

/** pg-boss's database interface: one statement with `$n` placeholders. */
interface QueueExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * The module's job queue: pg-boss in the host's PostgreSQL.
 *
 * By default pg-boss runs its statements on the ORM's connection pool (no second pool, no second
 * connection string), and {@link enqueue} inside a transaction writes the queue entries on that
 * transaction's connection: a trigger's jobs and their queue entries commit or roll back together
 * (a transactional outbox, reference/stack-notes.md).
 */
@Injectable()
export class NotificationsQueue implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(NotificationsQueue.name);
  private boss!: PgBoss;
  private readonly workerIds: string[] = [];

  constructor(
    private readonly db: NotificationsDatabase,
    @InjectNotificationsOptions() private readonly options: ResolvedNotificationsOptions,
  ) {}

  async onModuleInit(): Promise<void> {
    const { queue } = this.options;
    const common = {
      schema: queue.schema,
      // Only instances that run the worker look after lost jobs; an API-only instance just enqueues.
      supervise: this.options.worker.enabled,
      schedule: false,
      maintenanceIntervalSeconds: queue.maintenanceIntervalSeconds,
    };
    this.boss = queue.connectionString
      ? new PgBoss({ ...common, connectionString: queue.connectionString, max: 4 })
      : new PgBoss({ ...common, db: this.executor() });
    this.boss.on('error', (error: Error) => this.logger.error(`Queue error: ${error.message}`, error.stack));
    await this.boss.start();
    // Several instances may start at once against one database: create the queue if it is missing,
    // else bring its settings to this instance's options (pg-boss keeps them on the queue row, so
    // without this a changed `queue` option would never apply to an existing database).
    const settings = { name: JOBS_QUEUE, expireInSeconds: queue.expireInSeconds, retryLimit: queue.retryLimit, retryDelay: queue.retryDelaySeconds };
    if (await this.boss.getQueue(JOBS_QUEUE)) {
      await this.boss.updateQueue(JOBS_QUEUE, settings);
      return;
    }
    try {
      await this.boss.createQueue(JOBS_QUEUE, settings);
    } catch (error) {
      if (!(await this.boss.getQueue(JOBS_QUEUE))) throw error;
      await this.boss.updateQueue(JOBS_QUEUE, settings);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    // Waits for running batches: a batch cut off here would be rolled back and run again anyway,
    // but a clean stop lets jest and rolling deploys exit without waiting for the job to expire.
    await this.boss?.stop({ graceful: true, wait: true, close: true, timeout: 20_000 });
  }

  /**
   * Adds queue entries with one statement. With `em` inside `em.transactional(...)`, the entries are
   * part of that transaction: invisible until it commits, gone if it rolls back.
   */
  async enqueue(entries: readonly QueueEntry[], em?: EntityManager): Promise<void> {
    if (entries.length === 0) return;
    const jobs = entries.map((entry) => ({
      name: JOBS_QUEUE,
      data: { environmentId: entry.environmentId, jobId: entry.jobId } satisfies QueuedJobData,
      ...(entry.startAfter && entry.startAfter.getTime() > Date.now() && { startAfter: entry.startAfter.toISOString() }),
    }));
    // pg-boss inserts with `JOIN queue`, so entries for a missing queue vanish without an error, and
    // `insert` returns nothing: count the inserted rows on the way through instead.
    let inserted = 0;
    const trx = em?.getTransactionContext<Knex.Transaction>();
    const conn = trx ? ((await trx.client.acquireConnection()) as PoolClient) : undefined;
    const db: QueueExecutor = {
      executeSql: async (text, values) => {
        const result = conn ? await conn.query(text, values) : await this.db.query(text, values);
        inserted += result.rowCount ?? 0;
        return result;
      },
    };
    await this.boss.insert(jobs as PgBoss.JobInsert[], { db } as PgBoss.InsertOptions);
    if (inserted !== jobs.length) throw new Error(`Queue "${JOBS_QUEUE}" took ${inserted} of ${jobs.length} job(s): was it created?`);
  }

  /**
   * Starts a polling loop that hands batches of due entries to `handler`. pg-boss completes the
   * batch when the handler resolves and retries it when it throws.
   */
  async work(handler: (jobs: PgBoss.Job<QueuedJobData>[]) => Promise<void>): Promise<string> {
    const { pollingIntervalSeconds } = this.options.worker;
    const { batchSize } = workerLoops(this.options.worker);
    // priority: false: the module never sets priorities, and without them pg-boss's fetch sorts the
    // due entries by creation only (less work on a deep queue).
    const id = await this.boss.work<QueuedJobData>(JOBS_QUEUE, { batchSize, pollingIntervalSeconds, priority: false }, handler);
    this.workerIds.push(id);
    return id;
  }

  /** Wakes this process's polling loops now instead of at their next interval (new jobs are due). */
  wakeWorkers(): void {
    for (const id of this.workerIds) this.boss.notifyWorker(id);
  }

  /** Entries not yet completed (created, retry or active), for tests and health checks. */
  async countUnfinished(): Promise<number> {
    const { rows } = await this.db.query<{ count: string }>(
      `SELECT count(*)::text AS count FROM "${this.options.queue.schema}".job WHERE name = $1 AND state < 'completed'`,
      [JOBS_QUEUE],
    );
    return Number(rows[0].count);
  }

  /** pg-boss's statements on the ORM's pool. Without values pg uses the simple protocol, which pg-boss's multi-statement migrations need. */
  private executor(): QueueExecutor {
    return { executeSql: (text, values) => this.db.query(text, values?.length ? values : undefined) as Promise<{ rows: unknown[] }> };
  }
}

/**
 * How `worker.concurrency` (sends in flight) and `worker.batchSize` become polling loops: loops of
 * `min(batchSize, concurrency)` jobs, enough of them to hold about four times `concurrency` jobs. A
 * batch spends part of its time on database work (claim, context, one write per table, commit), so
 * while some batches write, the others' sends keep the send slots full. Measured with a 50 ms vendor
 * (bench/providers, concurrency 50, batches of 50, 20,000 sends): 2 loops 687 sends/s, 3 loops
 * 847–926, 4 loops 915–927, 6 loops 928–932 of an ideal 1,000; four keeps the connections held (one
 * per running loop) moderate for hosts that serve the API from the same pool.
 */
export function workerLoops(worker: { concurrency: number; batchSize: number }): { loops: number; batchSize: number } {
  const batchSize = Math.min(worker.batchSize, worker.concurrency);
  return { loops: Math.ceil((4 * worker.concurrency) / batchSize), batchSize };
}
