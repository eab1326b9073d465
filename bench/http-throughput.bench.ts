import 'reflect-metadata';
import { deepStrictEqual } from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { type DynamicModule, type INestApplication, Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { Pool } from 'pg';
import { EnvironmentsService, IntegrationsService, NotificationsModule, PROVIDER_IDS, SubscribersService } from '../lib';
import { FIND_NOTIFICATION_SQL } from '../lib/notifications/notifications.service';
import { createOrmConfig } from '../sample-app/mikro-orm.config';
import { createNotification, createWorkflow } from '../test/fixtures/notification.factory';
import { describeBenchRun, provisionBenchDatabase, round, runAsScript, writeBenchResults } from './support';

/**
 * HTTP throughput of the module's read routes against a hand-written baseline.
 *
 * Boots the real module on Nest + Fastify and, in the same process, a raw Fastify + `pg` server that
 * authenticates the same way (sha256 of the key, looked up in `ntf_api_key`, cached 10 s like
 * HashedApiKeyValidator) and runs the same SQL statements, returning the same JSON (checked before
 * measuring). autocannon runs in a child process so that the load generator never shares the
 * servers' event loop. The figure that matters is the ratio ours / raw, measured in one run on one
 * database: it is the price of Nest, the guard, the ORM and the mappers.
 *
 * The module is measured in two hosts: as the sample app mounts it (MikroORM's default request-context
 * middleware, which forks an EntityManager and enters an AsyncLocalStorage on every request of the app),
 * and in a host that turns that middleware off (`registerRequestContext: false`), which the module does
 * not need: every service method works on its own fork. The difference is the host's cost, not the module's.
 *
 * Run: `npx tsc -p tsconfig.sample.json && node dist/bench/http-throughput.bench.js` (about 2.5 minutes), or
 * call {@link runHttpThroughputBench} from a runner.
 * Environment: DATABASE_URL (a server to use instead of embedded PostgreSQL), BENCH_DURATION (seconds per
 * measurement, default 10), BENCH_WARMUP (seconds, default 3), BENCH_CONNECTIONS (default 20).
 */

const logger = new Logger('HttpThroughputBench');
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const ENCRYPTION_KEY = 'bench-encryption-key-0123456789abcdef';

/** The statement of IntegrationsService.listForEnvironment, verbatim. */
const INTEGRATIONS_SQL = 'SELECT * FROM ntf_integration WHERE environment_id = $1 AND NOT deleted ORDER BY created_at, id';

interface Measurement {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

export interface HttpThroughputResult {
  route: string;
  /** The module in a host with MikroORM's default request-context middleware (as the sample app). */
  ours: Measurement;
  /** The module in a host without that middleware. */
  oursWithoutRequestContext: Measurement;
  raw: Measurement;
  /** ours / raw requests per second; the target is ≥ 0.7. */
  ratio: number;
  /** oursWithoutRequestContext / raw. */
  ratioWithoutRequestContext: number;
}

/** Runs the benchmark, prints a table, writes bench/results/http-throughput.json. */
export async function runHttpThroughputBench(): Promise<HttpThroughputResult[]> {
  const database = await provisionBenchDatabase();
  const { url } = database;
  let app: INestApplication | undefined;
  let bare: INestApplication | undefined;
  let raw: { server: FastifyInstance; pool: Pool } | undefined;
  try {
    app = await startApp(url, true);
    bare = await startApp(url, false);
    const { apiKey, notificationId } = await seed(app);
    raw = await startRawServer(url);

    const ourBase = await app.getUrl();
    const bareBase = await bare.getUrl();
    const rawBase = `http://127.0.0.1:${(raw.server.server.address() as { port: number }).port}`;
    const routes = [
      { route: 'GET /v1/integrations', path: '/v1/integrations' },
      { route: 'GET /v1/notifications/{notificationId}', path: `/v1/notifications/${notificationId}` },
    ];
    const headers = { Authorization: `ApiKey ${apiKey}` };
    for (const { route, path } of routes) {
      // Same JSON or the comparison means nothing.
      const [ours, withoutContext, theirs] = await Promise.all([ourBase, bareBase, rawBase].map((base) => fetchJson(base + path, headers)));
      deepStrictEqual(withoutContext, ours, `${route}: the two hosts do not return the same JSON`);
      deepStrictEqual(theirs, ours, `${route}: the raw baseline does not return the module's JSON`);
    }

    const results: HttpThroughputResult[] = [];
    for (const { route, path } of routes) {
      logger.log(`${route}: warm-up ${WARMUP} s each, then ${DURATION} s each (ours, bare, raw, raw, bare, ours), ${CONNECTIONS} connections`);
      for (const base of [ourBase, bareBase, rawBase]) await autocannon(base + path, headers, WARMUP);
      // ABCCBA: drift in the machine's load (CPU boost, database caches, other processes) falls evenly on all three.
      const ours1 = await autocannon(ourBase + path, headers, DURATION);
      const bare1 = await autocannon(bareBase + path, headers, DURATION);
      const raw1 = await autocannon(rawBase + path, headers, DURATION);
      const raw2 = await autocannon(rawBase + path, headers, DURATION);
      const bare2 = await autocannon(bareBase + path, headers, DURATION);
      const ours2 = await autocannon(ourBase + path, headers, DURATION);
      const ours = mean(ours1, ours2);
      const oursWithoutRequestContext = mean(bare1, bare2);
      const rawResult = mean(raw1, raw2);
      results.push({
        route,
        ours,
        oursWithoutRequestContext,
        raw: rawResult,
        ratio: round(ours.requestsPerSecond / rawResult.requestsPerSecond, 3),
        ratioWithoutRequestContext: round(oursWithoutRequestContext.requestsPerSecond / rawResult.requestsPerSecond, 3),
      });
    }
    report(results);
    return results;
  } finally {
    await app?.close();
    await bare?.close();
    await raw?.server.close();
    await raw?.pool.end();
    await database.release();
  }
}

/** A host app mounting the module on Fastify, as the sample app does (request context on) or without MikroORM's request context. */
async function startApp(url: string, requestContext: boolean): Promise<INestApplication> {
  @Module({})
  class HttpThroughputBenchModule {}
  const module: DynamicModule = {
    module: HttpThroughputBenchModule,
    imports: [
      MikroOrmModule.forRoot({ ...createOrmConfig(url), registerRequestContext: requestContext }),
      NotificationsModule.forRoot({ encryptionKey: ENCRYPTION_KEY }),
    ],
  };
  const app = await NestFactory.create<NestFastifyApplication>(module, new FastifyAdapter(), { logger: ['error', 'warn'] });
  await app.listen(0, '127.0.0.1');
  return app;
}

/** An environment with five integrations, a subscriber, a four-step workflow and one completed run of it. */
async function seed(app: INestApplication): Promise<{ apiKey: string; notificationId: string }> {
  const { environment, apiKey } = await app.get(EnvironmentsService).create({ name: 'Bench' });
  const environmentId = environment.id;
  const integrations = app.get(IntegrationsService);
  await integrations.create(environmentId, { name: 'SendGrid', providerId: 'sendgrid', channel: 'email', primary: true, credentials: { apiKey: 'SG.bench' } });
  await integrations.create(environmentId, { name: 'Mailgun', providerId: 'mailgun', channel: 'email', credentials: { apiKey: 'mg-bench' } });
  await integrations.create(environmentId, { name: 'Twilio', providerId: 'twilio', channel: 'sms', primary: true, credentials: { accountSid: 'AC1', token: 't' } });
  await integrations.create(environmentId, { name: 'Slack', providerId: 'slack', channel: 'chat', credentials: {} });
  await integrations.create(environmentId, { name: 'In-app', providerId: 'novu', channel: 'in_app', primary: true });
  const subscriber = await app.get(SubscribersService).upsert(environmentId, { subscriberId: 'bench-user', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' });
  const workflow = await createWorkflow(app, environmentId);
  const { notification } = await createNotification(app, environmentId, { subscriber, workflow, payload: { orderId: 'ORD-42', total: 99.5 } });
  return { apiKey, notificationId: notification.id };
}

// ---------------------------------------------------------------------------------------------------
// The raw baseline: Fastify + pg, no Nest, no ORM. Hand-written, as a team would write it without the
// module; it answers the two routes (and their 401/404/422) and nothing else.
// ---------------------------------------------------------------------------------------------------

// Rows as pg returns them: column names as keys, jsonb and arrays parsed, timestamps as Dates.
type Row = Record<string, any>;

async function startRawServer(url: string): Promise<{ server: FastifyInstance; pool: Pool }> {
  const pool = new Pool({ connectionString: url, max: 20 });
  const keys = new Map<string, { environmentId: string; expiresAt: number }>();
  const server = Fastify({ logger: false });

  const authenticate = async (request: FastifyRequest, reply: FastifyReply): Promise<string | undefined> => {
    const header = request.headers.authorization?.trim();
    const space = header ? header.indexOf(' ') : -1;
    if (!header || space < 0 || header.slice(0, space) !== 'ApiKey') {
      await reply.code(401).send({ statusCode: 401, message: 'API Key not found' });
      return undefined;
    }
    const hash = createHash('sha256').update(header.slice(space + 1).trim(), 'utf8').digest('hex');
    const cached = keys.get(hash);
    if (cached && cached.expiresAt > Date.now()) return cached.environmentId;
    const { rows } = await pool.query('SELECT id, hash, environment_id, organization_id FROM ntf_api_key WHERE hash = $1 AND revoked_at IS NULL', [hash]);
    if (!rows[0]) {
      await reply.code(401).send({ statusCode: 401, message: 'API Key not found' });
      return undefined;
    }
    keys.set(hash, { environmentId: rows[0].environment_id, expiresAt: Date.now() + 10_000 });
    return rows[0].environment_id as string;
  };

  server.get('/v1/integrations', async (request, reply) => {
    const environmentId = await authenticate(request, reply);
    if (!environmentId) return reply;
    const { rows } = await pool.query(INTEGRATIONS_SQL, [environmentId]);
    return rows.map(rawIntegration);
  });

  server.get<{ Params: { id: string } }>('/v1/notifications/:id', async (request, reply) => {
    const environmentId = await authenticate(request, reply);
    if (!environmentId) return reply;
    if (!/^[0-9a-f]{24}$/i.test(request.params.id)) return reply.code(422).send({ statusCode: 422, message: 'notificationId must be a mongodb id' });
    const params = [request.params.id.toLowerCase(), environmentId];
    const notification = await pool.query(FIND_NOTIFICATION_SQL.notification, params);
    if (!notification.rows[0]) return reply.code(404).send({ statusCode: 404, message: 'Notification not found' });
    const [jobs, details] = await Promise.all([pool.query(FIND_NOTIFICATION_SQL.jobs, params), pool.query(FIND_NOTIFICATION_SQL.executionDetails, params)]);
    return rawNotification(notification.rows[0], jobs.rows, details.rows);
  });

  await server.listen({ port: 0, host: '127.0.0.1' });
  return { server, pool };
}

function rawIntegration(row: Row): Row {
  return {
    _id: row.id,
    _environmentId: row.environment_id,
    _organizationId: row.organization_id,
    name: row.name,
    identifier: row.identifier,
    providerId: row.provider_id,
    ...(row.channel && { channel: row.channel }),
    kind: row.kind,
    configurations: row.configurations,
    active: row.active,
    deleted: row.deleted,
    ...(row.deleted_at && { deletedAt: row.deleted_at.toISOString() }),
    ...(row.deleted_by && { deletedBy: row.deleted_by }),
    primary: row.primary,
    conditions: row.conditions,
  };
}

const PROVIDERS = new Set<string>(PROVIDER_IDS);
const DIGEST_TYPES = new Set(['regular', 'backoff', 'timed']);
const UNITS = new Set(['seconds', 'minutes', 'hours', 'days', 'weeks', 'months']);

function rawNotification(n: Row, jobs: Row[], details: Row[]): Row {
  const byJob = new Map<string, Row[]>();
  for (const d of details) {
    const line = {
      _id: d.id,
      createdAt: d.created_at.toISOString(),
      status: d.status,
      detail: d.detail,
      isRetry: d.is_retry,
      isTest: d.is_test,
      ...(d.provider_id && PROVIDERS.has(d.provider_id) && { providerId: d.provider_id }),
      raw: d.raw,
      source: d.source,
    };
    const list = byJob.get(d.job_id);
    if (list) list.push(line);
    else byJob.set(d.job_id, [line]);
  }
  const stepIds = new Map(jobs.map((j) => [j.id as string, j.step._id as string]));
  return {
    _id: n.id,
    _environmentId: n.environment_id,
    _organizationId: n.organization_id,
    _subscriberId: n.subscriber_id,
    transactionId: n.transaction_id,
    _templateId: n.workflow_id,
    ...(n.digested_notification_id && { _digestedNotificationId: n.digested_notification_id }),
    createdAt: n.created_at.toISOString(),
    updatedAt: n.updated_at.toISOString(),
    channels: (n.channels as string[]).filter((c) => c !== 'trigger'),
    ...(n.s_id && {
      subscriber: {
        _id: n.s_id,
        subscriberId: n.s_subscriber_id,
        ...(n.s_first_name !== null && { firstName: n.s_first_name }),
        ...(n.s_last_name !== null && { lastName: n.s_last_name }),
        ...(n.s_email !== null && { email: n.s_email }),
        ...(n.s_phone !== null && { phone: n.s_phone }),
      },
    }),
    ...(n.w_id && { template: { _id: n.w_id, name: n.w_name, triggers: [{ type: 'event', identifier: n.w_identifier, variables: [] }] } }),
    jobs: jobs.map((j) => {
      const step = j.step;
      const digest = j.digest && DIGEST_TYPES.has(j.digest.type) ? j.digest : undefined;
      return {
        _id: j.id,
        type: j.type,
        ...(digest && {
          digest: {
            type: digest.type,
            ...(typeof digest.digestKey === 'string' && { digestKey: digest.digestKey }),
            ...(typeof digest.amount === 'number' && { amount: digest.amount }),
            ...(UNITS.has(digest.unit) && { unit: digest.unit }),
            events: Array.isArray(digest.events) ? digest.events : [],
            ...(typeof digest.backoff === 'boolean' && { backoff: digest.backoff }),
            ...(typeof digest.backoffAmount === 'number' && { backoffAmount: digest.backoffAmount }),
            ...(UNITS.has(digest.backoffUnit) && { backoffUnit: digest.backoffUnit }),
            ...(typeof digest.updateMode === 'boolean' && { updateMode: digest.updateMode }),
          },
        }),
        executionDetails: byJob.get(j.id) ?? [],
        step: {
          _id: step._id ?? '',
          active: step.active ?? false,
          filters: step.filters ?? [],
          _templateId: step._templateId ?? '',
          ...(typeof step.name === 'string' && { name: step.name }),
          _parentId: (j.parent_id && stepIds.get(j.parent_id)) || null,
          ...(step.metadata && { metadata: step.metadata }),
          ...(step.template && { template: { type: j.type, ...step.template } }),
        },
        overrides: j.overrides,
        payload: j.payload,
        providerId: PROVIDERS.has(j.provider_id) ? j.provider_id : 'novu',
        status: j.status,
        updatedAt: j.updated_at.toISOString(),
      };
    }),
    payload: n.payload,
    tags: n.tags,
    ...(n.controls && { controls: n.controls }),
    to: n.to,
    critical: n.critical,
  };
}

// ---------------------------------------------------------------------------------------------------
// Load generation and reporting
// ---------------------------------------------------------------------------------------------------

const run = promisify(execFile);

/** One autocannon run in a child process (its own event loop and, the OS permitting, its own core). */
async function autocannon(url: string, headers: Record<string, string>, seconds: number): Promise<Measurement> {
  const args = [require.resolve('autocannon'), '--json', '-c', String(CONNECTIONS), '-d', String(seconds)];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  args.push(url);
  const { stdout } = await run(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 });
  const result = JSON.parse(stdout.trim().split('\n').pop() as string);
  const measurement = {
    requestsPerSecond: round(result.requests.average, 1),
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
  if (measurement.non2xx || measurement.errors) {
    throw new Error(`${url}: ${measurement.non2xx} non-2xx responses and ${measurement.errors} errors during the run`);
  }
  return measurement;
}

function mean(a: Measurement, b: Measurement): Measurement {
  return {
    requestsPerSecond: round((a.requestsPerSecond + b.requestsPerSecond) / 2, 1),
    latencyP50Ms: round((a.latencyP50Ms + b.latencyP50Ms) / 2, 2),
    latencyP99Ms: round((a.latencyP99Ms + b.latencyP99Ms) / 2, 2),
    requests: a.requests + b.requests,
    non2xx: a.non2xx + b.non2xx,
    errors: a.errors + b.errors,
  };
}

function report(results: HttpThroughputResult[]): void {
  const lines = results.map(
    (r) =>
      `${r.route}\n` +
      `  ours                     ${String(r.ours.requestsPerSecond).padStart(8)} req/s  p50 ${r.ours.latencyP50Ms} ms  ratio ${r.ratio.toFixed(3)}\n` +
      `  ours, no request context ${String(r.oursWithoutRequestContext.requestsPerSecond).padStart(8)} req/s  p50 ${r.oursWithoutRequestContext.latencyP50Ms} ms  ratio ${r.ratioWithoutRequestContext.toFixed(3)}\n` +
      `  raw Fastify + pg         ${String(r.raw.requestsPerSecond).padStart(8)} req/s  p50 ${r.raw.latencyP50Ms} ms`,
  );
  process.stdout.write(`\nHTTP throughput, the module on Nest + Fastify vs raw Fastify + pg, ${CONNECTIONS} connections, ${DURATION} s x 2 each\n${lines.join('\n')}\n`);
  writeBenchResults('http-throughput', {
    ...describeBenchRun('http-throughput'),
    settings: { connections: CONNECTIONS, durationSeconds: DURATION, warmupSeconds: WARMUP, order: 'ours, ours without request context, raw, raw, ours without request context, ours (mean of two each)' },
    target: 'ratio (ours / raw requests per second) >= 0.7',
    results,
  });
}

async function fetchJson(url: string, headers: Record<string, string>): Promise<unknown> {
  const response = await fetch(url, { headers });
  if (response.status !== 200) throw new Error(`${url}: status ${response.status}: ${await response.text()}`);
  return response.json();
}

runAsScript(module, logger, runHttpThroughputBench);
