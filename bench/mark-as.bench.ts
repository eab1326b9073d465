import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { type DynamicModule, type INestApplication, Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { EnvironmentsService, type MarkAs, MessagesService, NotificationsModule, SubscribersService } from '../lib';
import { createOrmConfig } from '../sample-app/mikro-orm.config';
import { createMessages } from '../test/fixtures/message.factory';
import { describeBenchRun, type Latency, provisionBenchDatabase, round, runAsScript, statementsDuring, summarizeLatency, writeBenchResults } from './support';

/**
 * Mark-as of 100 messages: how many SQL statements one request costs, and its latency against a raw
 * `pg` baseline running the same UPDATE, all measured in one run on one database.
 *
 * Variants, interleaved round by round (the order rotates each round, so that drift in the machine's
 * load falls evenly on all), each alternating `read` and `unread` so that every call really updates
 * the 100 rows:
 * - `rawUpdate`: a dedicated `pg` client runs `UPDATE ntf_message … WHERE environment_id AND
 *   subscriber_id = <internal id> AND id = ANY($ids) RETURNING *` — the subscriber's row id already known;
 * - `rawStatement`: the same client runs MessagesService's own statement (subscriber lookup folded in);
 * - `service`: `MessagesService.markAs` (pool, statement, entity mapping);
 * - `http`: `POST /v1/subscribers/{id}/messages/mark-as` on Nest + Fastify over loopback, keep-alive.
 *
 * Statements are counted at the `pg` driver (`Client.prototype.query`), so every statement of any
 * layer (guard, idempotency, ORM) is seen.
 *
 * Run: `tsc -p tsconfig.sample.json && node dist/bench/mark-as.bench.js`.
 * Environment: DATABASE_URL (a server to use instead of embedded PostgreSQL), BENCH_ROUNDS (default 500),
 * BENCH_WARMUP_ROUNDS (default 50).
 */

const logger = new Logger('MarkAsBench');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 500);
const WARMUP_ROUNDS = Number(process.env.BENCH_WARMUP_ROUNDS ?? 50);
const MESSAGE_COUNT = 100;
const ENCRYPTION_KEY = 'bench-encryption-key-0123456789abcdef';

/** The SET clauses of MessagesService, for the raw baseline. */
const SET: Record<'read' | 'unread', string> = {
  read: 'read = true, last_read_date = now(), seen = true, last_seen_date = now()',
  unread: 'read = false',
};

const RAW_UPDATE = (markAs: 'read' | 'unread') =>
  `UPDATE ntf_message SET ${SET[markAs]}, updated_at = now()
    WHERE environment_id = $1 AND subscriber_id = $2 AND id = ANY($3::text[]) AND NOT deleted
    RETURNING *`;

const RAW_STATEMENT = (markAs: 'read' | 'unread') =>
  `WITH subscriber AS (
     SELECT id FROM ntf_subscriber WHERE environment_id = $1 AND subscriber_id = $2 AND NOT deleted
   ), updated AS (
     UPDATE ntf_message AS m SET ${SET[markAs]}, updated_at = now()
       FROM subscriber
      WHERE m.environment_id = $1 AND m.subscriber_id = subscriber.id AND m.id = ANY($3::text[]) AND NOT m.deleted
     RETURNING m.*
   )
   SELECT subscriber.id AS subscriber_row_id, updated.*
     FROM subscriber LEFT JOIN updated ON true
    ORDER BY updated.created_at, updated.id`;


export interface MarkAsBenchResult {
  messages: number;
  statements: { http: { total: number; updates: number; texts: string[] }; service: { total: number; updates: number } };
  latency: Record<'rawUpdate' | 'rawStatement' | 'service' | 'http', Latency>;
  /** p50 of each variant / p50 of `rawUpdate`. */
  ratioP50: Record<'rawStatement' | 'service' | 'http', number>;
}

/** Runs the benchmark, prints the figures, writes bench/results/mark-as.json. */
export async function runMarkAsBench(): Promise<MarkAsBenchResult> {
  const database = await provisionBenchDatabase();
  const { url } = database;
  let app: INestApplication | undefined;
  const raw = new Client({ connectionString: url });
  try {
    app = await NestFactory.create<NestFastifyApplication>(benchAppModule(url), new FastifyAdapter(), { logger: ['error', 'warn'] });
    await app.listen(0, '127.0.0.1');
    const { environment, apiKey } = await app.get(EnvironmentsService).create({ name: 'Bench' });
    const subscriber = await app.get(SubscribersService).upsert(environment.id, { subscriberId: 'bench-user' });
    // A second subscriber with messages of its own, so that the index has something to skip.
    const neighbour = await app.get(SubscribersService).upsert(environment.id, { subscriberId: 'bench-neighbour' });
    await createMessages(app, neighbour, 1000);
    const ids = (await createMessages(app, subscriber, MESSAGE_COUNT)).map((m) => m.id);
    await raw.connect();

    const service = app.get(MessagesService);
    const endpoint = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/v1/subscribers/bench-user/messages/mark-as`;
    const headers = { Authorization: `ApiKey ${apiKey}`, 'Content-Type': 'application/json' };
    const http = async (markAs: MarkAs) => {
      const response = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify({ messageId: ids, markAs }) });
      const body = (await response.json()) as unknown[];
      if (response.status !== 201 || body.length !== MESSAGE_COUNT) throw new Error(`mark-as answered ${response.status} with ${body.length} messages`);
    };
    const variants: Record<keyof MarkAsBenchResult['latency'], (markAs: 'read' | 'unread') => Promise<unknown>> = {
      rawUpdate: async (markAs) => expectRows(await raw.query(RAW_UPDATE(markAs), [environment.id, subscriber.id, ids])),
      rawStatement: async (markAs) => expectRows(await raw.query(RAW_STATEMENT(markAs), [environment.id, 'bench-user', ids])),
      service: async (markAs) => {
        const messages = await service.markAs(environment.id, 'bench-user', ids, markAs);
        if (messages.length !== MESSAGE_COUNT) throw new Error(`service updated ${messages.length} messages`);
      },
      http,
    };

    // Warm-up (JIT, plan caches, the API-key cache), then count statements of one call of each layer.
    const names = Object.keys(variants) as (keyof typeof variants)[];
    for (let round = 0; round < WARMUP_ROUNDS; round += 1) {
      for (const name of names) await variants[name](round % 2 ? 'unread' : 'read');
    }
    const httpStatements = (await statementsDuring(() => http('read'))).map((line) => line.sql);
    const serviceStatements = (await statementsDuring(() => service.markAs(environment.id, 'bench-user', ids, 'unread'))).map((line) => line.sql);

    logger.log(`${ROUNDS} rounds of ${names.join(', ')}, ${MESSAGE_COUNT} ids each`);
    const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<keyof typeof variants, number[]>;
    for (let round = 0; round < ROUNDS; round += 1) {
      const markAs = round % 2 ? 'unread' : 'read';
      for (let i = 0; i < names.length; i += 1) {
        const name = names[(round + i) % names.length];
        const started = performance.now();
        await variants[name](markAs);
        samples[name].push(performance.now() - started);
      }
    }

    const latency = Object.fromEntries(names.map((name) => [name, summarizeLatency(samples[name], 3)])) as MarkAsBenchResult['latency'];
    const ratio = (name: 'rawStatement' | 'service' | 'http') => round(latency[name].p50Ms / latency.rawUpdate.p50Ms, 2);
    const result: MarkAsBenchResult = {
      messages: MESSAGE_COUNT,
      statements: {
        http: { total: httpStatements.length, updates: countUpdates(httpStatements), texts: httpStatements.map(firstLine) },
        service: { total: serviceStatements.length, updates: countUpdates(serviceStatements) },
      },
      latency,
      ratioP50: { rawStatement: ratio('rawStatement'), service: ratio('service'), http: ratio('http') },
    };
    report(result);
    return result;
  } finally {
    await raw.end().catch(() => undefined);
    await app?.close();
    await database.release();
  }
}

function benchAppModule(url: string): DynamicModule {
  @Module({})
  class MarkAsBenchModule {}
  return {
    module: MarkAsBenchModule,
    imports: [MikroOrmModule.forRoot(createOrmConfig(url)), NotificationsModule.forRoot({ encryptionKey: ENCRYPTION_KEY })],
  };
}


function countUpdates(statements: string[]): number {
  return statements.reduce((sum, text) => sum + (text.match(/\bUPDATE\s+ntf_message\b/gi)?.length ?? 0), 0);
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0].trim();
}

function expectRows(result: { rowCount: number | null }): void {
  if ((result.rowCount ?? 0) < MESSAGE_COUNT) throw new Error(`raw statement returned ${result.rowCount} rows`);
}


function report(result: MarkAsBenchResult): void {
  const rows = (Object.entries(result.latency) as [string, Latency][]).map(
    ([name, l]) => `${name.padEnd(14)} p50 ${l.p50Ms.toFixed(3).padStart(8)} ms   p95 ${l.p95Ms.toFixed(3).padStart(8)} ms   mean ${l.meanMs.toFixed(3).padStart(8)} ms`,
  );
  process.stdout.write(
    `\nmark-as of ${result.messages} ids, ${ROUNDS} rounds\n` +
      `statements per HTTP request: ${result.statements.http.total} (UPDATE ntf_message: ${result.statements.http.updates})\n` +
      `statements per service call: ${result.statements.service.total} (UPDATE ntf_message: ${result.statements.service.updates})\n` +
      `${rows.join('\n')}\n` +
      `p50 ratio to rawUpdate: rawStatement ${result.ratioP50.rawStatement}, service ${result.ratioP50.service}, http ${result.ratioP50.http}\n`,
  );
  writeBenchResults('mark-as', {
    ...describeBenchRun('mark-as'),
    settings: { rounds: ROUNDS, warmupRounds: WARMUP_ROUNDS, order: 'interleaved, rotating each round; read/unread alternating' },
    ...result,
  });
}

runAsScript(module, logger, runMarkAsBench);
