import 'reflect-metadata';
import { deepStrictEqual } from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Pool, type PoolClient } from 'pg';
import { IN_HOUSE_PROVIDER_ID } from '../lib/common/enums';
import { generateId } from '../lib/common/id';
import { JOBS_QUEUE } from '../lib/delivery/notifications-queue';
import {
  type BenchEnvironment,
  type BenchEvent,
  benchEvents,
  bulkEndpoint,
  CpuMeter,
  type CpuSample,
  createBenchEnvironment,
  EVENTS_PER_REQUEST,
  IN_APP_WORKFLOW,
  postBulk,
  startIntakeApp,
} from './pipeline-support';
import {
  countByTable,
  describeBenchRun,
  type Latency,
  provisionBenchDatabase,
  round,
  runAsScript,
  type StatementLine,
  statementsDuring,
  summarizeLatency,
  writeBenchResults,
} from './support';

/**
 * Intake of the trigger pipeline: `POST /v1/events/trigger/bulk` with 100 events (one recipient each,
 * every subscriber new, the one-step in-app workflow) on the module mounted in a Nest + Fastify host
 * with the worker disabled, so that only intake is measured.
 *
 * Against a baseline measured in the same run on the same database: a hand-written script that writes
 * the same rows — the subscriber upsert, the notification, the two jobs (`trigger`, `in_app`), the
 * three `Step created` / `Step queued` details, and the pg-boss queue entry of each event — with one
 * multi-row statement per table and one transaction per 100 events, on a raw `pg` Pool. It knows its
 * workflow (read once) and does no HTTP, no validation, no API-key lookup: it is the floor of what
 * writing those rows costs. Before measuring, one event written by each is compared row by row.
 *
 * Figures:
 * - throughput: events per second at `BENCH_CONCURRENCY` concurrent requests (autocannon in a child
 *   process, so the load generator never shares the app's event loop) against the baseline at as many
 *   concurrent transactions; order service, baseline, baseline, service, the mean of two each;
 * - latency of one 100-event request alone (sequential, interleaved with one baseline batch alone);
 * - the SQL statements of one 100-event request, counted at the `pg` driver (`Client.prototype.query`).
 *
 * Run: `tsc -p tsconfig.sample.json && node dist/bench/intake.bench.js` (about 1.5 minutes).
 * Environment: DATABASE_URL (a server to use instead of embedded PostgreSQL), BENCH_DURATION (seconds per
 * throughput measurement, default 10), BENCH_WARMUP (seconds, default 3), BENCH_CONCURRENCY (default 4),
 * BENCH_LATENCY_ROUNDS (default 200).
 */

const logger = new Logger('IntakeBench');
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const LATENCY_ROUNDS = Number(process.env.BENCH_LATENCY_ROUNDS ?? 200);

interface Throughput {
  eventsPerSecond: number;
  requests: number;
  seconds: number;
}


export interface IntakeBenchResult {
  throughput: {
    service: Throughput & { latencyP50Ms: number; latencyP99Ms: number };
    baseline: Throughput;
    /** service / baseline events per second; the target is ≥ 0.6. */
    ratio: number;
  };
  /**
   * CPU time per event during the measured throughput phases: of this process (the app, then the
   * baseline script; autocannon runs elsewhere) and of the PostgreSQL server (null when not local).
   */
  cpuMsPerEvent: Record<'service' | 'baseline', { process: number; postgres: number | null }>;
  /** One 100-event request (or baseline batch) at a time. Target: service p50 ≤ 50 ms. */
  latency: { service: Latency; baseline: Latency; ratioP50: number };
  /**
   * The statements of one request (one baseline batch), sequential, no other load: `wallMs` is the whole
   * request as the client saw it, `sqlMs` the sum of the statements' round trips.
   */
  statements: Record<'service' | 'baseline', { total: number; byTable: Record<string, number>; wallMs: number; sqlMs: number; list: StatementLine[] }>;
}

/** Runs the benchmark, prints the figures, writes bench/results/intake.json. */
export async function runIntakeBench(): Promise<IntakeBenchResult> {
  const database = await provisionBenchDatabase();
  const { url } = database;
  let app: NestFastifyApplication | undefined;
  const pool = new Pool({ connectionString: url, max: CONCURRENCY });
  const scratch = mkdtempSync(join(tmpdir(), 'ntf-intake-bench-'));
  try {
    app = await startIntakeApp(url);
    const env = await createBenchEnvironment(app, 'Intake bench');
    const endpoint = await bulkEndpoint(app);
    const baseline = await RawIntake.create(pool, env);
    let batch = 0;
    const serviceRequest = () => postBulk(endpoint, env.apiKey, JSON.stringify({ events: benchEvents(`svc${batch++}`) }));
    const baselineBatch = () => baseline.write(benchEvents(`raw${batch++}`));

    // The same rows, or the comparison means nothing.
    await postBulk(endpoint, env.apiKey, JSON.stringify({ events: benchEvents('check-service', 1) }), 1);
    await baseline.write(benchEvents('check-baseline', 1));
    deepStrictEqual(await snapshotRun(pool, 'check-baseline-0'), await snapshotRun(pool, 'check-service-0'), 'the baseline does not write the rows the service writes');

    // Warm-up (JIT, plan caches, the API-key cache), then the statements of one request of each.
    for (let i = 0; i < 20; i += 1) {
      await serviceRequest();
      await baselineBatch();
    }
    const spied = async (request: () => Promise<unknown>) => {
      const started = performance.now();
      const list = await statementsDuring(request);
      const wallMs = round(performance.now() - started, 2);
      return { total: list.length, byTable: countByTable(list), wallMs, sqlMs: round(list.reduce((sum, line) => sum + line.ms, 0), 2), list };
    };
    const serviceStatements = await spied(serviceRequest);
    const baselineStatements = await spied(baselineBatch);

    logger.log(`latency: ${LATENCY_ROUNDS} rounds of one ${EVENTS_PER_REQUEST}-event request, then one baseline batch (order alternating)`);
    const samples = { service: [] as number[], baseline: [] as number[] };
    for (let i = 0; i < LATENCY_ROUNDS; i += 1) {
      // Bodies are built before the clock starts: the figure is the request, not the test's JSON.
      const body = JSON.stringify({ events: benchEvents(`lat${i}`) });
      const events = benchEvents(`latraw${i}`);
      const timed = async (name: keyof typeof samples, run: () => Promise<unknown>) => {
        const started = performance.now();
        await run();
        samples[name].push(performance.now() - started);
      };
      const service = () => timed('service', () => postBulk(endpoint, env.apiKey, body));
      const raw = () => timed('baseline', () => baseline.write(events));
      if (i % 2) {
        await raw();
        await service();
      } else {
        await service();
        await raw();
      }
    }

    const bodyFile = (run: string) => {
      const file = join(scratch, `${run}.json`);
      // autocannon replaces every `[<id>]` with one fresh id per request: 100 new subscribers each time.
      writeFileSync(file, JSON.stringify({ events: benchEvents(`${run}-[<id>]`) }));
      return file;
    };
    const meter = await CpuMeter.create(url);
    const cpu = { service: { events: 0, processMs: 0, postgresMs: 0 as number | null }, baseline: { events: 0, processMs: 0, postgresMs: 0 as number | null } };
    // CPU of the measured phases only (warm-ups excluded): this process is the app, then the baseline script.
    const metered = async <T extends Throughput>(name: keyof typeof cpu | null, phase: () => Promise<T>): Promise<T> => {
      const before = meter.sample();
      const result = await phase();
      if (name) addCpu(cpu[name], before, meter.sample(), result.requests * EVENTS_PER_REQUEST);
      return result;
    };
    const service = (run: string, seconds: number, measured = true) => metered(measured ? 'service' : null, () => autocannonBulk(pool, env, endpoint, bodyFile(run), seconds));
    const raw = (seconds: number, measured = true) => metered(measured ? 'baseline' : null, () => runBaseline(baseline, seconds));
    logger.log(`throughput: warm-up ${WARMUP} s each, then ${DURATION} s each (service, baseline, baseline, service), ${CONCURRENCY} concurrent requests`);
    await service('warm', WARMUP, false);
    await raw(WARMUP, false);
    const service1 = await service('run1', DURATION);
    const raw1 = await raw(DURATION);
    const raw2 = await raw(DURATION);
    const service2 = await service('run2', DURATION);
    const serviceThroughput = {
      eventsPerSecond: round((service1.eventsPerSecond + service2.eventsPerSecond) / 2, 1),
      requests: service1.requests + service2.requests,
      seconds: round(service1.seconds + service2.seconds, 2),
      latencyP50Ms: round((service1.latencyP50Ms + service2.latencyP50Ms) / 2, 1),
      latencyP99Ms: round((service1.latencyP99Ms + service2.latencyP99Ms) / 2, 1),
    };
    const baselineThroughput = {
      eventsPerSecond: round((raw1.eventsPerSecond + raw2.eventsPerSecond) / 2, 1),
      requests: raw1.requests + raw2.requests,
      seconds: round(raw1.seconds + raw2.seconds, 2),
    };

    const latency = { service: summarizeLatency(samples.service), baseline: summarizeLatency(samples.baseline) };
    const result: IntakeBenchResult = {
      throughput: {
        service: serviceThroughput,
        baseline: baselineThroughput,
        ratio: round(serviceThroughput.eventsPerSecond / baselineThroughput.eventsPerSecond, 3),
      },
      latency: { ...latency, ratioP50: round(latency.service.p50Ms / latency.baseline.p50Ms, 2) },
      cpuMsPerEvent: { service: perEvent(cpu.service), baseline: perEvent(cpu.baseline) },
      statements: { service: serviceStatements, baseline: baselineStatements },
    };
    report(result);
    return result;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    await pool.end().catch(() => undefined);
    await app?.close();
    await database.release();
  }
}

// ---------------------------------------------------------------------------------------------------
// The baseline: the same rows with hand-written batched SQL on a raw pg Pool.
// ---------------------------------------------------------------------------------------------------

/**
 * Writes what the service writes for events of {@link IN_APP_WORKFLOW} with one recipient each, as a
 * team would write it knowing the workflow: BEGIN, one multi-row statement per table, COMMIT.
 */
class RawIntake {
  private constructor(
    private readonly pool: Pool,
    private readonly env: BenchEnvironment,
    private readonly inAppStep: string,
  ) {}

  static async create(pool: Pool, env: BenchEnvironment): Promise<RawIntake> {
    const { rows } = await pool.query<{ step: unknown }>('SELECT steps -> 0 AS step FROM ntf_workflow WHERE id = $1', [env.workflowId]);
    return new RawIntake(pool, env, JSON.stringify(rows[0].step));
  }

  async write(events: BenchEvent[]): Promise<void> {
    const { environmentId, organizationId, workflowId } = this.env;
    const n = events.length;
    const subscriberIds = events.map((e) => e.to.subscriberId);
    const notificationIds = events.map(() => generateId());
    const transactionIds = events.map(() => `txn_${generateId()}`);
    const triggerJobIds = events.map(() => generateId());
    const inAppJobIds = events.map(() => generateId());
    const payloads = events.map((e) => JSON.stringify(e.payload));

    const client: PoolClient = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const subscribers = await client.query<{ id: string; subscriber_id: string }>(
        `INSERT INTO ntf_subscriber AS s (id, environment_id, organization_id, subscriber_id, first_name, email, channels, created_at, updated_at)
         SELECT r.id, $1, $2, r.subscriber_id, r.first_name, r.email, '[]', now(), now()
           FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS r(id, subscriber_id, first_name, email)
          ORDER BY r.subscriber_id
         ON CONFLICT (environment_id, subscriber_id) DO UPDATE
            SET first_name = EXCLUDED.first_name, email = EXCLUDED.email, deleted = false, version = s.version + 1, updated_at = now()
         RETURNING id, subscriber_id`,
        [environmentId, organizationId, events.map(() => generateId()), subscriberIds, events.map((e) => e.to.firstName), events.map((e) => e.to.email)],
      );
      const rowIdOf = new Map(subscribers.rows.map((row) => [row.subscriber_id, row.id]));
      const subscriberRowIds = subscriberIds.map((id) => rowIdOf.get(id) as string);
      await client.query(
        `INSERT INTO ntf_notification (id, environment_id, organization_id, created_at, updated_at, subscriber_id, workflow_id, transaction_id,
                                       channels, payload, "to", tags, critical)
         SELECT r.id, $1, $2, now(), now(), r.subscriber_id, $3, r.transaction_id, '{in_app}', r.payload::jsonb, r."to"::jsonb, '{bench}', false
           FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) AS r(id, subscriber_id, transaction_id, payload, "to")`,
        [environmentId, organizationId, workflowId, notificationIds, subscriberRowIds, transactionIds, payloads, events.map((e) => JSON.stringify(e.to))],
      );
      // Two jobs per event: the trigger job (queued, a step of its own) and the in-app job, its child.
      const both = <T>(first: T[], second: T[]) => [...first, ...second];
      await client.query(
        `INSERT INTO ntf_job (id, environment_id, organization_id, created_at, updated_at, notification_id, subscriber_id, external_subscriber_id,
                              workflow_id, identifier, transaction_id, parent_id, type, status, step, payload, overrides, provider_id)
         SELECT r.id, $1, $2, now(), now(), r.notification_id, r.subscriber_id, r.external_subscriber_id,
                $3, $4, r.transaction_id, r.parent_id, r.type,
                CASE WHEN r.type = 'trigger' THEN 'queued' ELSE 'pending' END,
                CASE WHEN r.type = 'trigger'
                     THEN jsonb_build_object('_id', r.step_id, '_templateId', r.template_id, 'type', 'trigger', 'active', true,
                                             'filters', '[]'::jsonb, 'name', 'trigger')
                     ELSE $5::jsonb END,
                r.payload::jsonb, '{}', $6
           FROM unnest($7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[])
                AS r(id, notification_id, subscriber_id, external_subscriber_id, transaction_id, parent_id, type, payload, step_id, template_id)`,
        [
          environmentId,
          organizationId,
          workflowId,
          IN_APP_WORKFLOW.identifier,
          this.inAppStep,
          IN_HOUSE_PROVIDER_ID,
          both(triggerJobIds, inAppJobIds),
          both(notificationIds, notificationIds),
          both(subscriberRowIds, subscriberRowIds),
          both(subscriberIds, subscriberIds),
          both(transactionIds, transactionIds),
          both(new Array<string | null>(n).fill(null), triggerJobIds),
          both(new Array<string>(n).fill('trigger'), new Array<string>(n).fill('in_app')),
          both(payloads, payloads),
          both(events.map(() => generateId()), new Array<string | null>(n).fill(null)),
          both(events.map(() => generateId()), new Array<string | null>(n).fill(null)),
        ],
      );
      // Three lines per event: the trigger job's `Step created` and `Step queued`, the in-app job's `Step created`.
      const three = <T>(trigger: T[], inApp: T[]) => events.flatMap((_, i) => [trigger[i], trigger[i], inApp[i]]);
      await client.query(
        `INSERT INTO ntf_execution_detail (id, environment_id, organization_id, created_at, updated_at, job_id, notification_id, workflow_id,
                                           subscriber_id, external_subscriber_id, transaction_id, channel, detail, source, status, is_test, is_retry)
         SELECT r.id, $1, $2, now(), now(), r.job_id, r.notification_id, $3, r.subscriber_id, r.external_subscriber_id, r.transaction_id,
                r.channel, r.detail, 'Internal', 'Pending', false, false
           FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
                AS r(id, job_id, notification_id, subscriber_id, external_subscriber_id, transaction_id, channel, detail)`,
        [
          environmentId,
          organizationId,
          workflowId,
          Array.from({ length: 3 * n }, () => generateId()),
          three(triggerJobIds, inAppJobIds),
          three(notificationIds, notificationIds),
          three(subscriberRowIds, subscriberRowIds),
          three(subscriberIds, subscriberIds),
          three(transactionIds, transactionIds),
          events.flatMap(() => ['trigger', 'trigger', 'in_app']),
          events.flatMap(() => ['Step created', 'Step queued', 'Step created']),
        ],
      );
      // The queue entries, with the queue's own settings, as pg-boss would insert them.
      await client.query(
        `INSERT INTO pgboss.job (id, name, data, priority, start_after, expire_in, keep_until, retry_limit, retry_delay, retry_backoff, dead_letter, policy)
         SELECT gen_random_uuid(), q.name, jsonb_build_object('environmentId', $1::text, 'jobId', j.id), 0, now(),
                COALESCE(q.expire_seconds, 900) * interval '1 second',
                now() + COALESCE(q.retention_minutes * interval '1 minute', interval '14 days'),
                COALESCE(q.retry_limit, 2), COALESCE(q.retry_delay, 0), COALESCE(q.retry_backoff, false), q.dead_letter, q.policy
           FROM unnest($2::text[]) AS j(id)
           JOIN pgboss.queue q ON q.name = $3`,
        [environmentId, triggerJobIds, JOBS_QUEUE],
      );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}

/** The baseline at {@link CONCURRENCY} concurrent transactions for `seconds`; every batch started finishes. */
async function runBaseline(baseline: RawIntake, seconds: number): Promise<Throughput> {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let requests = 0;
  const loop = async (lane: number) => {
    while (performance.now() < deadline) {
      await baseline.write(benchEvents(`raw-${lane}-${generateId()}`));
      requests += 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, lane) => loop(lane)));
  const elapsed = (performance.now() - started) / 1000;
  return { eventsPerSecond: round((requests * EVENTS_PER_REQUEST) / elapsed, 1), requests, seconds: round(elapsed, 2) };
}

// ---------------------------------------------------------------------------------------------------
// Load generation, checks and reporting
// ---------------------------------------------------------------------------------------------------

const run = promisify(execFile);

/**
 * One autocannon run in a child process, POSTing `bodyFile` (with fresh ids per request) for `seconds`.
 * autocannon sees only status codes, so the notifications written during the run are counted too: at
 * least 100 per 201, at most 100 more per connection (requests still in flight when it stopped).
 */
async function autocannonBulk(pool: Pool, env: BenchEnvironment, endpoint: string, bodyFile: string, seconds: number): Promise<Throughput & { latencyP50Ms: number; latencyP99Ms: number }> {
  const count = async () =>
    Number((await pool.query<{ n: string }>('SELECT count(*)::text AS n FROM ntf_notification WHERE environment_id = $1', [env.environmentId])).rows[0].n);
  const before = await count();
  const args = [require.resolve('autocannon'), '--json', '-c', String(CONCURRENCY), '-d', String(seconds), '-m', 'POST', '-I', '-i', bodyFile];
  args.push('-H', `Authorization=ApiKey ${env.apiKey}`, '-H', 'Content-Type=application/json', endpoint);
  const { stdout } = await run(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 });
  const result = JSON.parse(stdout.trim().split('\n').pop() as string);
  if (result.non2xx || result.errors || result.timeouts) {
    throw new Error(`${endpoint}: ${result.non2xx} non-2xx responses, ${result.errors} errors, ${result.timeouts} timeouts during the run`);
  }
  const written = (await count()) - before;
  const answered = result['2xx'] as number;
  if (written < answered * EVENTS_PER_REQUEST || written > (answered + CONCURRENCY) * EVENTS_PER_REQUEST) {
    throw new Error(`${answered} requests answered 201 but ${written} notifications were written: some events were not processed`);
  }
  return {
    eventsPerSecond: round((answered * EVENTS_PER_REQUEST) / result.duration, 1),
    requests: answered,
    seconds: round(result.duration, 2),
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
  };
}

/**
 * The rows of the run of one subscriber's event — notification, jobs, details, queue entry — with what
 * differs from run to run (generated ids, timestamps) replaced by their role, for comparing two writers.
 */
async function snapshotRun(pool: Pool, subscriberId: string): Promise<unknown> {
  const one = async (sql: string, values: unknown[]) => (await pool.query(sql, values)).rows;
  const [subscriber] = await one('SELECT * FROM ntf_subscriber WHERE subscriber_id = $1', [subscriberId]);
  const [notification] = await one('SELECT * FROM ntf_notification WHERE subscriber_id = $1', [subscriber.id]);
  const jobs = await one('SELECT * FROM ntf_job WHERE notification_id = $1 ORDER BY id', [notification.id]);
  const details = await one('SELECT * FROM ntf_execution_detail WHERE notification_id = $1 ORDER BY id', [notification.id]);
  const queue = await one(`SELECT *, round(extract(epoch FROM keep_until - created_on) / 60) AS kept_minutes FROM pgboss.job WHERE data ->> 'jobId' = ANY($1::text[])`, [jobs.map((j) => j.id)]);
  const roles = new Map<string, string>([
    [subscriber.id, '<subscriber row>'],
    [subscriberId, '<subscriberId>'],
    [subscriber.email, '<email>'],
    [notification.id, '<notification>'],
    [notification.transaction_id, '<transactionId>'],
    ...jobs.map((job, i): [string, string] => [job.id, `<job ${i}>`]),
  ]);
  const volatile = new Set(['id', '_id', '_templateId', 'created_at', 'updated_at', 'created_on', 'start_after', 'keep_until']);
  const normalize = (value: unknown): unknown => {
    if (typeof value === 'string') return roles.get(value) ?? value;
    if (value instanceof Date) return '<date>';
    if (Array.isArray(value)) return value.map(normalize);
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).flatMap(([key, v]) => (volatile.has(key) && !roles.has(v as string) ? [] : [[key, normalize(v)]])));
    }
    return value;
  };
  return normalize({ subscriber, notification, jobs, details, queue });
}

function addCpu(total: { events: number; processMs: number; postgresMs: number | null }, before: CpuSample, after: CpuSample, events: number): void {
  total.events += events;
  total.processMs += after.processMs - before.processMs;
  total.postgresMs = total.postgresMs === null || after.postgresMs === null || before.postgresMs === null ? null : total.postgresMs + after.postgresMs - before.postgresMs;
}

function perEvent(total: { events: number; processMs: number; postgresMs: number | null }): { process: number; postgres: number | null } {
  return { process: round(total.processMs / total.events, 3), postgres: total.postgresMs === null ? null : round(total.postgresMs / total.events, 3) };
}


function cpuLine(cpu: { process: number; postgres: number | null }): string {
  return `process ${cpu.process} ms, PostgreSQL ${cpu.postgres === null ? 'n/a' : `${cpu.postgres} ms`}`;
}

function report(result: IntakeBenchResult): void {
  const { throughput: t, latency: l, statements: s } = result;
  const list = (statements: StatementLine[]) => statements.map((line, i) => `  ${String(i + 1).padStart(2)}. ${line.ms.toFixed(2).padStart(7)} ms [${line.tables.join(' + ')}] ${line.text}`).join('\n');
  process.stdout.write(
    `\nIntake, ${EVENTS_PER_REQUEST}-event bulk triggers (one new subscriber each, in-app workflow), ${CONCURRENCY} concurrent, ${DURATION} s x 2 each\n` +
      `  service (Nest + Fastify)   ${String(t.service.eventsPerSecond).padStart(8)} events/s  (request p50 ${t.service.latencyP50Ms} ms, p99 ${t.service.latencyP99Ms} ms)\n` +
      `  baseline (raw pg, batched) ${String(t.baseline.eventsPerSecond).padStart(8)} events/s\n` +
      `  ratio ${t.ratio} (target >= 0.6)\n` +
      `  CPU per event: service ${cpuLine(result.cpuMsPerEvent.service)}; baseline ${cpuLine(result.cpuMsPerEvent.baseline)}\n` +
      `One ${EVENTS_PER_REQUEST}-event request alone, ${l.service.samples} rounds\n` +
      `  service  p50 ${l.service.p50Ms} ms  p95 ${l.service.p95Ms} ms  p99 ${l.service.p99Ms} ms (target p50 <= 50 ms)\n` +
      `  baseline p50 ${l.baseline.p50Ms} ms  p95 ${l.baseline.p95Ms} ms  p99 ${l.baseline.p99Ms} ms  (p50 ratio ${l.ratioP50})\n` +
      `Statements of one ${EVENTS_PER_REQUEST}-event request: ${s.service.total} ${JSON.stringify(s.service.byTable)}, ` +
      `request ${s.service.wallMs} ms, SQL ${s.service.sqlMs} ms\n${list(s.service.list)}\n` +
      `Statements of one baseline batch: ${s.baseline.total} ${JSON.stringify(s.baseline.byTable)}, batch ${s.baseline.wallMs} ms, SQL ${s.baseline.sqlMs} ms\n${list(s.baseline.list)}\n`,
  );
  writeBenchResults('intake', {
    ...describeBenchRun('intake'),
    settings: {
      eventsPerRequest: EVENTS_PER_REQUEST,
      concurrency: CONCURRENCY,
      durationSeconds: DURATION,
      warmupSeconds: WARMUP,
      latencyRounds: LATENCY_ROUNDS,
      order: 'throughput: service, baseline, baseline, service (mean of two each); latency: alternating one request / one baseline batch',
      host: 'Nest + Fastify, MikroORM request context on, worker disabled; autocannon in a child process',
      baseline: 'raw pg Pool, BEGIN + one multi-row INSERT per table (subscriber upsert, notification, job, execution_detail, pgboss.job) + COMMIT per 100 events',
    },
    target: 'throughput ratio (service / baseline events per second) >= 0.6; service latency p50 <= 50 ms',
    ...result,
  });
}

runAsScript(module, logger, runIntakeBench);
