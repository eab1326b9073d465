import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { type INestApplicationContext, Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ChannelConnectionsService, EnvironmentsService, NotificationsDatabase, NotificationsModule, SecretCipher } from '../lib';
import { createOrmConfig } from '../sample-app/mikro-orm.config';
import { provisionBenchDatabase, round, runAsScript, writeBenchResults } from './support';

/**
 * GET /v1/channel-connections at depth: 1,000,000 connections in one environment, then a page at depth 0
 * and a page 900,000 rows deep (an `after` cursor), both through the real ChannelConnectionsService
 * (the statement the HTTP route runs: page, edge check and capped count in one round trip), next to a
 * raw keyset query and the capped count alone, all measured in this one run.
 *
 * Targets (DESIGN §7, stack-notes): the deep page within 1.5× of the first page; the capped count under 10 ms.
 *
 * Run: `npx tsc -p tsconfig.sample.json && node dist/bench/channel-connections.bench.js`
 * (uses DATABASE_URL's server when set, else a throwaway embedded PostgreSQL with fsync off).
 * Writes bench/results/channel-connections.json.
 */

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const DEPTH = Math.floor(ROWS * 0.9);
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const WARMUP = 20;
const DEPTH_RATIO_TARGET = 1.5;
const COUNT_TARGET_MS = 10;

const logger = new Logger('ChannelConnectionsBench');

interface Measurement {
  name: string;
  runs: number;
  medianMs: number;
  p95Ms: number;
  minMs: number;
}

export interface ChannelConnectionsBenchResult {
  when: string;
  rows: number;
  depth: number;
  runsPerMeasurement: number;
  postgres: string;
  measurements: Measurement[];
  ratios: { servicePageDepthVsFirst: Record<string, number>; rawPageDepthVsFirst: Record<string, number>; serviceOverRaw: Record<string, number> };
  targets: { depthRatioMax: number; depthRatioMet: boolean; cappedCountMaxMs: number; cappedCountMet: boolean };
  plans: Record<string, string[]>;
  /** Plans above that contain a sequential scan (expected: none). */
  plansWithSequentialScans: string[];
}

/**
 * Times every case `runs` times after a warm-up, interleaved (each round runs every case once, in a
 * rotating order), so that a burst of noise on a shared machine weighs on all cases alike and the
 * ratios stay fair. Reports median, p95 and minimum per case.
 */
async function measureInterleaved(cases: ReadonlyArray<readonly [string, () => Promise<unknown>]>, runs = RUNS): Promise<Measurement[]> {
  for (let i = 0; i < WARMUP; i++) for (const [, fn] of cases) await fn();
  const samples = cases.map(() => [] as number[]);
  for (let round = 0; round < runs; round++) {
    for (let k = 0; k < cases.length; k++) {
      const index = (round + k) % cases.length;
      const start = performance.now();
      await cases[index][1]();
      samples[index].push(performance.now() - start);
    }
  }
  return cases.map(([name], index) => {
    const sorted = samples[index].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    return { name, runs, medianMs: round(at(0.5), 3), p95Ms: round(at(0.95), 3), minMs: round(sorted[0], 3) };
  });
}

/** Runs the benchmark end to end and returns what it wrote. */
export async function runChannelConnectionsBench(): Promise<ChannelConnectionsBenchResult> {
  const database = await provisionBenchDatabase();
  let app: INestApplicationContext | undefined;
  try {
    @Module({
      imports: [
        MikroOrmModule.forRoot(createOrmConfig(database.url)),
        NotificationsModule.forRoot({ encryptionKey: 'bench-encryption-key-0123456789', registerControllers: false }),
      ],
    })
    class BenchModule {}
    app = await NestFactory.createApplicationContext(BenchModule, { logger: ['error', 'warn'] });
    const db = app.get(NotificationsDatabase);
    const service = app.get(ChannelConnectionsService);
    const { environment } = await app.get(EnvironmentsService).create({ name: 'bench' });
    const environmentId = environment.id;

    logger.log(`seeding ${ROWS.toLocaleString('en')} channel connections (one INSERT … SELECT FROM generate_series)`);
    const seedStart = performance.now();
    const authEncrypted = app.get(SecretCipher).encrypt(JSON.stringify({ accessToken: 'xoxb-bench' }));
    // created_at advances every other row, so half the rows tie on it and the id tie-break is exercised.
    await db.query(
      `INSERT INTO ntf_channel_connection
         (id, environment_id, organization_id, created_at, updated_at, identifier, channel, provider_id,
          integration_identifier, subscriber_id, context_keys, workspace, auth_encrypted)
       SELECT substr(md5($1 || ':' || g), 1, 24), $1, $2,
              timestamptz '2026-01-01' + (g / 2) * interval '1 millisecond',
              timestamptz '2026-01-01' + (g / 2) * interval '1 millisecond',
              'bench-' || g, 'chat', 'slack', 'slack-prod', 'subscriber-' || (g % 50000),
              CASE WHEN g % 10 = 0 THEN ARRAY['tenant:t' || (g % 100)] ELSE '{}'::text[] END,
              jsonb_build_object('id', 'T' || (g % 1000)), $3
         FROM generate_series(1, $4::int) AS g`,
      [environmentId, environment.organizationId, authEncrypted, ROWS],
    );
    // What autovacuum would do on its own a little later: fresh statistics and a visibility map, which the
    // capped count (an index-only scan) relies on.
    // A VACUUM right after a bulk insert can leave pages not all-visible (autovacuum's own ANALYZE may hold
    // a snapshot at that moment), so it is repeated until the visibility map covers the table.
    await db.query('VACUUM ANALYZE ntf_channel_connection');
    for (let attempt = 0; attempt < 5; attempt++) {
      const { rows } = await db.query<{ relpages: number; relallvisible: number }>(
        "SELECT relpages, relallvisible FROM pg_class WHERE relname = 'ntf_channel_connection'",
      );
      if (rows[0].relallvisible >= rows[0].relpages * 0.99) break;
      await new Promise((done) => setTimeout(done, 1000));
      await db.query('VACUUM ntf_channel_connection');
    }
    // Flush the seed's dirty pages now rather than during the measurements.
    await db.query('CHECKPOINT');
    const seedSeconds = round((performance.now() - seedStart) / 1000, 3);
    logger.log(`seeded in ${seedSeconds} s`);

    // The cursor 900,000 rows deep in the default order (createdAt DESC). OFFSET only to find it, here.
    const { rows: cursorRows } = await db.query<{ id: string; created_at: string }>(
      `SELECT id, created_at::text AS created_at FROM ntf_channel_connection WHERE environment_id = $1
        ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
      [environmentId, DEPTH - 1],
    );
    const deepCursor = cursorRows[0].id;
    const deepPage = await service.list(environmentId, { after: deepCursor, limit: 10 });
    if (deepPage.data.length !== 10 || deepPage.totalCount !== 50_000 || !deepPage.totalCountCapped || deepPage.previous !== deepPage.data[0].connection.id) {
      throw new Error('the deep page is not what the service should answer');
    }

    // Captures the service's statement (text and values) for EXPLAIN, without changing what it runs.
    const statements: Array<{ text: string; values: readonly unknown[] }> = [];
    const originalQuery = db.query.bind(db);
    db.query = ((text: string, values: readonly unknown[] = []) => {
      statements.push({ text, values });
      return originalQuery(text, values);
    }) as typeof db.query;
    await service.list(environmentId, { limit: 10 });
    await service.list(environmentId, { after: deepCursor, limit: 10 });
    db.query = originalQuery as typeof db.query;

    // The baseline: the bare keyset page, with the cursor's values given as parameters (no cursor
    // lookup, no count, no edge check): the least any keyset page can cost.
    const rawPage = (limit: number, cursor?: { id: string; created_at: string }) =>
      cursor
        ? db.query(
            `SELECT t.* FROM ntf_channel_connection t
              WHERE t.environment_id = $1 AND (t.created_at, t.id) < ($2::timestamptz, $3)
              ORDER BY t.created_at DESC, t.id DESC LIMIT $4`,
            [environmentId, cursor.created_at, cursor.id, limit + 1],
          )
        : db.query(
            'SELECT t.* FROM ntf_channel_connection t WHERE t.environment_id = $1 ORDER BY t.created_at DESC, t.id DESC LIMIT $2',
            [environmentId, limit + 1],
          );
    // The count as the service runs it (ordered like created_idx, so an index-only scan), and the bare form
    // with the plan left to the planner, for comparison.
    const cappedCountSql = 'SELECT count(*) FROM (SELECT 1 FROM ntf_channel_connection t WHERE t.environment_id = $1 ORDER BY t.created_at, t.id LIMIT 50001) c';
    const bareCountSql = 'SELECT count(*) FROM (SELECT 1 FROM ntf_channel_connection t WHERE t.environment_id = $1 LIMIT 50001) c';

    const depthLabel = DEPTH.toLocaleString('en');
    const cases: Array<readonly [string, () => Promise<unknown>]> = [];
    for (const limit of [10, 100]) {
      cases.push([`service page limit ${limit}, depth 0`, () => service.list(environmentId, { limit })]);
      cases.push([`service page limit ${limit}, depth ${depthLabel}`, () => service.list(environmentId, { limit, after: deepCursor })]);
      cases.push([`raw keyset page limit ${limit}, depth 0`, () => rawPage(limit)]);
      cases.push([`raw keyset page limit ${limit}, depth ${depthLabel}`, () => rawPage(limit, cursorRows[0])]);
    }
    cases.push(['capped count alone (LIMIT 50001)', () => db.query(cappedCountSql, [environmentId])]);
    cases.push(['capped count alone, no ORDER BY (planner\'s choice)', () => db.query(bareCountSql, [environmentId])]);
    cases.push(['service page limit 10, filter contextKeys, depth 0', () => service.list(environmentId, { limit: 10, contextKeys: ['tenant:t70'] })]);
    const measurements = await measureInterleaved(cases);

    const median = (name: string) => measurements.find((m) => m.name === name)!.medianMs;
    const ratio = (a: number, b: number) => round(a / b, 2);
    const ratios: ChannelConnectionsBenchResult['ratios'] = { servicePageDepthVsFirst: {}, rawPageDepthVsFirst: {}, serviceOverRaw: {} };
    for (const limit of [10, 100]) {
      ratios.servicePageDepthVsFirst[`limit ${limit}`] = ratio(median(`service page limit ${limit}, depth ${depthLabel}`), median(`service page limit ${limit}, depth 0`));
      ratios.rawPageDepthVsFirst[`limit ${limit}`] = ratio(median(`raw keyset page limit ${limit}, depth ${depthLabel}`), median(`raw keyset page limit ${limit}, depth 0`));
      ratios.serviceOverRaw[`limit ${limit}, depth ${depthLabel}`] = ratio(median(`service page limit ${limit}, depth ${depthLabel}`), median(`raw keyset page limit ${limit}, depth ${depthLabel}`));
    }
    const countMs = median('capped count alone (LIMIT 50001)');

    const plans: Record<string, string[]> = {};
    for (const [label, statement] of [['service statement, depth 0', statements[0]], [`service statement, depth ${depthLabel}`, statements[1]]] as const) {
      const { rows } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${statement.text}`, statement.values);
      plans[label] = rows.map((row) => row['QUERY PLAN']);
    }
    const { rows: countPlan } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${cappedCountSql}`, [environmentId]);
    plans['capped count alone'] = countPlan.map((row) => row['QUERY PLAN']);
    const sequentialScans = Object.entries(plans)
      .filter(([, lines]) => lines.some((line) => line.includes('Seq Scan')))
      .map(([label]) => label);
    if (sequentialScans.length) logger.warn(`sequential scans in: ${sequentialScans.join(', ')}`);
    const { rows: version } = await db.query<{ server_version: string }>('SHOW server_version');

    const result: ChannelConnectionsBenchResult = {
      when: new Date().toISOString(),
      rows: ROWS,
      depth: DEPTH,
      runsPerMeasurement: RUNS,
      postgres: version[0].server_version,
      measurements,
      ratios,
      targets: {
        depthRatioMax: DEPTH_RATIO_TARGET,
        depthRatioMet: Object.values(ratios.servicePageDepthVsFirst).every((r) => r <= DEPTH_RATIO_TARGET),
        cappedCountMaxMs: COUNT_TARGET_MS,
        cappedCountMet: countMs < COUNT_TARGET_MS,
      },
      plans,
      plansWithSequentialScans: sequentialScans,
    };
    report(result, seedSeconds);
    return result;
  } finally {
    await app?.close();
    await database.release();
  }
}

function report(result: ChannelConnectionsBenchResult, seedSeconds: number): void {
  const width = Math.max(...result.measurements.map((m) => m.name.length));
  const lines = [
    '',
    `GET /v1/channel-connections — ${result.rows.toLocaleString('en')} rows in one environment, PostgreSQL ${result.postgres}, seeded in ${seedSeconds} s`,
    `${'measurement'.padEnd(width)}  ${'median ms'.padStart(10)}  ${'p95 ms'.padStart(8)}  ${'min ms'.padStart(8)}  runs`,
    ...result.measurements.map(
      (m) => `${m.name.padEnd(width)}  ${m.medianMs.toFixed(3).padStart(10)}  ${m.p95Ms.toFixed(3).padStart(8)}  ${m.minMs.toFixed(3).padStart(8)}  ${m.runs}`,
    ),
    '',
    `service page, depth ${result.depth.toLocaleString('en')} / depth 0: ${JSON.stringify(result.ratios.servicePageDepthVsFirst)} (target ≤ ${result.targets.depthRatioMax}: ${result.targets.depthRatioMet ? 'met' : 'NOT met'})`,
    `raw keyset page, deep / first: ${JSON.stringify(result.ratios.rawPageDepthVsFirst)}`,
    `service / raw keyset page (deep): ${JSON.stringify(result.ratios.serviceOverRaw)}`,
    `capped count alone: ${result.measurements.find((m) => m.name.startsWith('capped count'))!.medianMs} ms median (target < ${result.targets.cappedCountMaxMs} ms: ${result.targets.cappedCountMet ? 'met' : 'NOT met'})`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  writeBenchResults('channel-connections', result);
}

runAsScript(module, logger, runChannelConnectionsBench);
