import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Pool } from 'pg';
import { JOBS_QUEUE } from '../lib/delivery/notifications-queue';
import {
  type BatchStats,
  batchStats,
  type BenchEnvironment,
  benchEvents,
  bulkEndpoint,
  CpuMeter,
  type CpuSample,
  createBenchEnvironment,
  EVENTS_PER_REQUEST,
  postBulk,
  startIntakeApp,
  WorkerProcess,
} from './pipeline-support';
import { describeBenchRun, provisionBenchDatabase, round, runAsScript, writeBenchResults } from './support';

/**
 * The trigger pipeline end to end: 10,000 events (100 bulk requests of 100, one new subscriber each,
 * the one-step in-app workflow) from the first request to the last in-app message row.
 *
 * An API-only host (Nest + Fastify, worker disabled) takes the requests, `BENCH_CONCURRENCY` at a time,
 * while worker-only hosts run the jobs, each a separate OS process (`node dist/bench/worker-process.js`,
 * started and ready before the clock starts): once with one worker process, once with two, and once per
 * extra batch size of `BENCH_E2E_BATCH_SIZES` with one (to see what the batch size does). Then, to see
 * the workers' own capacity without intake sharing the two cores, "drain only" with one and with two
 * worker processes: the 10,000 events are taken first, the workers start after, and the clock starts
 * when the first of them is ready. Each variant has an environment of its own on the same database.
 *
 * Figures per variant: events per second = events / (last message's `created_at` − the first request's
 * start), and the delay from trigger to message (message `created_at` − notification `created_at`, both
 * written by PostgreSQL on the same clock) at p50 / p99, computed in SQL with `percentile_cont`. The
 * workers' own batch lines (`ran N job(s) of M queue entries in X ms`) give the batch sizes and times.
 *
 * Run: `tsc -p tsconfig.sample.json && node dist/bench/end-to-end.bench.js`.
 * Environment: DATABASE_URL (a server to use instead of embedded PostgreSQL), BENCH_E2E_EVENTS (default
 * 10000, a multiple of 100), BENCH_CONCURRENCY (concurrent requests, default 4), BENCH_E2E_BATCH_SIZES
 * (comma-separated extra batch sizes for one worker process, default `20,100`; empty for none),
 * BENCH_E2E_TIMEOUT (seconds to wait for the last message of a variant, default 600).
 */

const logger = new Logger('EndToEndBench');
const EVENTS = Number(process.env.BENCH_E2E_EVENTS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const BATCH_SIZES = (process.env.BENCH_E2E_BATCH_SIZES ?? '20,100')
  .split(',')
  .map((value) => value.trim())
  .filter(Boolean)
  .map(Number);
const TIMEOUT_SECONDS = Number(process.env.BENCH_E2E_TIMEOUT ?? 600);
/** The module's worker defaults (lib/notifications.options.ts), reported with the figures. */
const DEFAULT_WORKER = { concurrency: 50, batchSize: 50, pollingIntervalSeconds: 0.5 };

interface Variant {
  name: string;
  workerProcesses: number;
  worker: typeof DEFAULT_WORKER;
  /**
   * Drain only: all events are taken before the workers start, and the clock starts when the first
   * worker process is ready, so the worker's capacity is measured without intake sharing the CPU.
   */
  drain: boolean;
}


export interface EndToEndVariantResult extends Variant {
  events: number;
  /** events / (last message created_at − first request start), or − the first worker ready when draining. */
  eventsPerSecond: number;
  /** First request start (or first worker ready) → last message, seconds. */
  totalSeconds: number;
  /** First request start → last 201, seconds (intake runs while the workers work, unless draining). */
  intakeSeconds: number;
  /** Trigger (notification created_at) → message created_at; null when draining (the events waited for the workers). */
  delayMs: { p50: number; p99: number; max: number } | null;
  batches: BatchStats;
  /**
   * CPU time per event from the first request (or first worker ready) to the last message: of the worker
   * processes, of this process (the API host), of the PostgreSQL server (null when not on this machine).
   */
  cpuMsPerEvent: { workers: number; api: number; postgres: number | null };
}

/** Runs the benchmark, prints the figures, writes bench/results/end-to-end.json. */
export async function runEndToEndBench(): Promise<EndToEndVariantResult[]> {
  if (EVENTS % EVENTS_PER_REQUEST !== 0) throw new Error(`BENCH_E2E_EVENTS must be a multiple of ${EVENTS_PER_REQUEST}`);
  const database = await provisionBenchDatabase();
  const { url } = database;
  let app: NestFastifyApplication | undefined;
  const pool = new Pool({ connectionString: url, max: 2 });
  const variants: Variant[] = [
    { name: 'one worker process', workerProcesses: 1, worker: DEFAULT_WORKER, drain: false },
    { name: 'two worker processes', workerProcesses: 2, worker: DEFAULT_WORKER, drain: false },
    // concurrency = batchSize: loops of `batchSize` jobs, two of them (workerLoops), as with the default.
    ...BATCH_SIZES.map((batchSize) => ({ name: `one worker process, batchSize ${batchSize}`, workerProcesses: 1, worker: { ...DEFAULT_WORKER, batchSize, concurrency: batchSize }, drain: false })),
    { name: 'drain only, one worker process', workerProcesses: 1, worker: DEFAULT_WORKER, drain: true },
    { name: 'drain only, two worker processes', workerProcesses: 2, worker: DEFAULT_WORKER, drain: true },
  ];
  try {
    app = await startIntakeApp(url);
    const endpoint = await bulkEndpoint(app);
    const meter = await CpuMeter.create(url);
    // Warm the API host (JIT, plan caches) on an environment no worker variant measures.
    const warm = await createBenchEnvironment(app, 'End-to-end warm-up');
    for (let i = 0; i < 10; i += 1) await postBulk(endpoint, warm.apiKey, JSON.stringify({ events: benchEvents(`warm${i}`) }));
    // Their queue entries go: the first variant's workers would run them too (its jobs stay `queued`, unseen).
    await pool.query(`DELETE FROM pgboss.job WHERE name = $1 AND data ->> 'environmentId' = $2`, [JOBS_QUEUE, warm.environmentId]);

    const results: EndToEndVariantResult[] = [];
    for (const [index, variant] of variants.entries()) {
      const env = await createBenchEnvironment(app, `End-to-end ${variant.name}`);
      logger.log(`${variant.name}: ${EVENTS} events, ${EVENTS / EVENTS_PER_REQUEST} requests, ${CONCURRENCY} concurrent`);
      results.push(await runVariant(variant, index, url, pool, env, endpoint, meter));
    }
    report(results);
    return results;
  } finally {
    await pool.end().catch(() => undefined);
    await app?.close();
    await database.release();
  }
}

async function runVariant(
  variant: Variant,
  index: number,
  url: string,
  pool: Pool,
  env: BenchEnvironment,
  endpoint: string,
  meter: CpuMeter,
): Promise<EndToEndVariantResult> {
  const workers: WorkerProcess[] = [];
  // Each one kept as soon as it runs, so that `finally` stops it even if another fails to start.
  const startWorkers = () =>
    Promise.all(Array.from({ length: variant.workerProcesses }, async () => workers.push(await WorkerProcess.start(url, { worker: variant.worker }))));
  try {
    let cpuBefore: { sample: CpuSample; workersMs: number } | undefined;
    const workersMs = () => workers.reduce((sum, worker) => sum + CpuMeter.processMs(worker.pid), 0);
    if (!variant.drain) {
      await startWorkers();
      cpuBefore = { sample: meter.sample(), workersMs: workersMs() };
    }
    const bodies = Array.from({ length: EVENTS / EVENTS_PER_REQUEST }, (_, i) => JSON.stringify({ events: benchEvents(`e2e${index}-${i}`) }));
    const intakeStarted = Date.now();
    let next = 0;
    const lane = async () => {
      while (next < bodies.length) await postBulk(endpoint, env.apiKey, bodies[next++]);
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));
    const intakeDone = Date.now();
    if (variant.drain) {
      await startWorkers();
      cpuBefore = { sample: meter.sample(), workersMs: workersMs() };
    }
    const started = variant.drain ? Math.min(...workers.map((worker) => worker.readyAt)) : intakeStarted;

    const deadline = Date.now() + TIMEOUT_SECONDS * 1000;
    for (;;) {
      const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM ntf_message WHERE environment_id = $1', [env.environmentId]);
      if (rows[0].n >= EVENTS) break;
      if (Date.now() > deadline) throw new Error(`${variant.name}: ${rows[0].n} of ${EVENTS} messages after ${TIMEOUT_SECONDS} s`);
      for (const worker of workers) worker.assertAlive();
      await new Promise((resolve) => setTimeout(resolve, 250));
    }

    const cpuAfter = { sample: meter.sample(), workersMs: workersMs() };
    const { rows } = await pool.query<{ messages: number; last_ms: number; p50: number; p99: number; max: number }>(
      `SELECT count(*)::int AS messages,
              (extract(epoch FROM max(m.created_at)) * 1000)::float8 AS last_ms,
              (percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM m.created_at - n.created_at)) * 1000)::float8 AS p50,
              (percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM m.created_at - n.created_at)) * 1000)::float8 AS p99,
              (extract(epoch FROM max(m.created_at - n.created_at)) * 1000)::float8 AS max
         FROM ntf_message m
         JOIN ntf_notification n ON n.id = m.notification_id AND n.environment_id = m.environment_id
        WHERE m.environment_id = $1 AND m.channel = 'in_app'`,
      [env.environmentId],
    );
    const jobs = await pool.query<{ type: string; status: string; n: number }>(
      'SELECT type, status, count(*)::int AS n FROM ntf_job WHERE environment_id = $1 GROUP BY type, status',
      [env.environmentId],
    );
    const unfinished = jobs.rows.filter((row) => row.status !== 'completed');
    if (rows[0].messages !== EVENTS || unfinished.length) {
      throw new Error(`${variant.name}: ${rows[0].messages} messages; jobs ${JSON.stringify(jobs.rows)}`);
    }
    const total = (rows[0].last_ms - started) / 1000;
    return {
      ...variant,
      events: EVENTS,
      eventsPerSecond: round(EVENTS / total, 1),
      totalSeconds: round(total, 2),
      intakeSeconds: round((intakeDone - intakeStarted) / 1000, 2),
      delayMs: variant.drain ? null : { p50: round(rows[0].p50, 1), p99: round(rows[0].p99, 1), max: round(rows[0].max, 1) },
      batches: batchStats(workers.flatMap((worker) => worker.batches)),
      cpuMsPerEvent: cpuPerEvent(cpuBefore!, cpuAfter),
    };
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
  }
}

function cpuPerEvent(before: { sample: CpuSample; workersMs: number }, after: { sample: CpuSample; workersMs: number }): EndToEndVariantResult['cpuMsPerEvent'] {
  const postgres = before.sample.postgresMs === null || after.sample.postgresMs === null ? null : round((after.sample.postgresMs - before.sample.postgresMs) / EVENTS, 3);
  return {
    workers: round((after.workersMs - before.workersMs) / EVENTS, 3),
    api: round((after.sample.processMs - before.sample.processMs) / EVENTS, 3),
    postgres,
  };
}

function report(results: EndToEndVariantResult[]): void {
  const lines = results.map(
    (r) =>
      `  ${r.name.padEnd(40)} ${String(r.eventsPerSecond).padStart(7)} events/s  total ${r.totalSeconds} s (intake ${r.intakeSeconds} s)  ` +
      `${r.delayMs ? `delay p50 ${r.delayMs.p50} ms p99 ${r.delayMs.p99} ms` : 'delay n/a (drain)'}  batches ${r.batches.batches} x ${r.batches.meanEntries} entries, mean ${r.batches.meanMs} ms\n` +
      `  ${''.padEnd(40)} CPU/event: workers ${r.cpuMsPerEvent.workers} ms, API ${r.cpuMsPerEvent.api} ms, PostgreSQL ${r.cpuMsPerEvent.postgres ?? 'n/a'} ms`,
  );
  process.stdout.write(`\nEnd to end, ${EVENTS} events (${EVENTS / EVENTS_PER_REQUEST} requests of ${EVENTS_PER_REQUEST}, ${CONCURRENCY} concurrent), in-app workflow\n${lines.join('\n')}\n`);
  writeBenchResults('end-to-end', {
    ...describeBenchRun('end-to-end'),
    settings: {
      events: EVENTS,
      eventsPerRequest: EVENTS_PER_REQUEST,
      concurrentRequests: CONCURRENCY,
      host: 'API-only Nest + Fastify (worker disabled) in the bench process; worker-only hosts as separate processes (dist/bench/worker-process.js)',
      eventsPerSecond: 'events / (last message created_at - first request start)',
      delay: 'message created_at - notification created_at, percentile_cont in SQL',
    },
    results,
  });
}

runAsScript(module, logger, runEndToEndBench);
