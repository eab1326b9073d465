import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { EnvironmentsService, NotificationsModule, type NotificationsModuleOptions, WorkflowsService, type WorkflowDefinition } from '../lib';
import { createOrmConfig } from '../sample-app/mikro-orm.config';
import { round } from './support';

/**
 * What the trigger-pipeline benchmarks (intake, end to end) share: the host app that takes the
 * triggers, the workflow, the events, and the statement spy.
 */

/** The encryption key of every benchmark host (API and worker processes must agree). */
export const BENCH_ENCRYPTION_KEY = 'bench-encryption-key-0123456789abcdef';

/** Events per bulk request: the contract's maximum, which is what the issue measures. */
export const EVENTS_PER_REQUEST = 100;

/** A one-step in-app workflow, with Liquid in its content and CTA so that the worker renders something. */
export const IN_APP_WORKFLOW: WorkflowDefinition = {
  identifier: 'bench-in-app',
  name: 'Bench in-app',
  tags: ['bench'],
  steps: [
    {
      type: 'in_app',
      name: 'In-app',
      template: {
        content: 'Hello {{ subscriber.firstName }}, order {{ payload.orderId }} is confirmed',
        cta: { type: 'redirect', data: { url: '/orders/{{ payload.orderId }}' } },
      },
    },
  ],
};

/** One event of a bulk trigger as a caller sends it. */
export interface BenchEvent {
  name: string;
  to: { subscriberId: string; firstName: string; email: string };
  payload: { orderId: string };
}

/**
 * `count` events of {@link IN_APP_WORKFLOW}, one recipient each, subscribers `<prefix>-0` … : distinct
 * subscribers across requests as long as the prefixes differ, so every event creates its subscriber.
 */
export function benchEvents(prefix: string, count = EVENTS_PER_REQUEST, workflow = IN_APP_WORKFLOW.identifier): BenchEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const subscriberId = `${prefix}-${i}`;
    return { name: workflow, to: { subscriberId, firstName: 'Ada', email: `${subscriberId}@example.com` }, payload: { orderId: `ORD-${i}` } };
  });
}

/**
 * An API-only host on Nest + Fastify, mounted as the sample app mounts the module (MikroORM's default
 * request context included), with the worker disabled: the process only takes triggers.
 */
export async function startIntakeApp(url: string): Promise<NestFastifyApplication> {
  @Module({})
  class IntakeBenchModule {}
  const module: DynamicModule = {
    module: IntakeBenchModule,
    imports: [MikroOrmModule.forRoot(createOrmConfig(url)), NotificationsModule.forRoot({ encryptionKey: BENCH_ENCRYPTION_KEY, worker: { enabled: false } })],
  };
  const app = await NestFactory.create<NestFastifyApplication>(module, new FastifyAdapter(), { logger: ['error', 'warn'] });
  await app.listen(0, '127.0.0.1');
  return app;
}

/** An environment holding {@link IN_APP_WORKFLOW}: its ids and an API key. */
export interface BenchEnvironment {
  environmentId: string;
  organizationId: string;
  apiKey: string;
  workflowId: string;
}

export async function createBenchEnvironment(app: NestFastifyApplication, name: string): Promise<BenchEnvironment> {
  const { environment, apiKey } = await app.get(EnvironmentsService).create({ name });
  const workflow = await app.get(WorkflowsService).upsert(environment.id, IN_APP_WORKFLOW);
  return { environmentId: environment.id, organizationId: environment.organizationId, apiKey, workflowId: workflow.id };
}

/** The bulk-trigger URL of a listening app (IPv4 loopback: autocannon and fetch agree on it). */
export async function bulkEndpoint(app: NestFastifyApplication): Promise<string> {
  return `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/v1/events/trigger/bulk`;
}

/**
 * POSTs one bulk request (a JSON body already serialized) and checks that it answered 201 with every
 * event `processed`: a benchmark that counts failed events as throughput would measure nothing.
 */
export async function postBulk(endpoint: string, apiKey: string, body: string, expected = EVENTS_PER_REQUEST): Promise<void> {
  const response = await fetch(endpoint, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}`, 'Content-Type': 'application/json' }, body });
  const results = (await response.json()) as Array<{ status?: string; error?: unknown }>;
  if (response.status !== 201) throw new Error(`bulk trigger answered ${response.status}: ${JSON.stringify(results).slice(0, 500)}`);
  const processed = results.filter((result) => result.status === 'processed').length;
  if (processed !== expected) {
    throw new Error(`bulk trigger processed ${processed} of ${expected} events: ${JSON.stringify(results.find((r) => r.status !== 'processed'))}`);
  }
}


/** CPU time used so far, in ms: by this process, and by the PostgreSQL server's processes when known. */
export interface CpuSample {
  processMs: number;
  postgresMs: number | null;
}

/**
 * Reads the CPU time of this process and of the PostgreSQL server: on a machine of two cores, where
 * the app, the load generator and the database share the CPU, the CPU per event explains a throughput
 * ratio better than the throughput alone. The server's processes are found from a backend's parent
 * (the postmaster) in /proc, so the server's figure exists only when it runs on this Linux machine
 * (the embedded server, or a local DATABASE_URL); it is null otherwise.
 */
export class CpuMeter {
  private constructor(private readonly postmaster: number | null) {}

  static async create(url: string): Promise<CpuMeter> {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const parent = /^PPid:\s+(\d+)$/m.exec(readProc(rows[0].pid, 'status') ?? '')?.[1];
      const postmaster = parent && readProc(Number(parent), 'comm')?.trim().startsWith('postgres') ? Number(parent) : null;
      return new CpuMeter(postmaster);
    } finally {
      await client.end();
    }
  }

  /** CPU time used so far by another process of this machine (a worker process), in ms; 0 when gone. */
  static processMs(pid: number): number {
    return cpuTicks(pid) * 10;
  }

  sample(): CpuSample {
    const usage = process.cpuUsage();
    return { processMs: (usage.user + usage.system) / 1000, postgresMs: this.postgresMs() };
  }

  private postgresMs(): number | null {
    if (this.postmaster === null || readProc(this.postmaster, 'comm') === null) return null;
    // The postmaster's own time plus that of its children already gone (autovacuum workers, closed
    // connections: cutime/cstime), plus that of those still running.
    let ticks = cpuTicks(this.postmaster, true);
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const parent = /^PPid:\s+(\d+)$/m.exec(readProc(Number(entry), 'status') ?? '')?.[1];
      if (Number(parent) === this.postmaster) ticks += cpuTicks(Number(entry));
    }
    // USER_HZ is 100 on every Linux build this runs on.
    return ticks * 10;
  }
}

function readProc(pid: number, file: string): string | null {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return null;
  }
}

/**
 * utime + stime of a process in clock ticks (fields 14 and 15 of /proc/<pid>/stat), plus cutime + cstime
 * (16 and 17: its children that have exited and were reaped) when `withExitedChildren`.
 */
function cpuTicks(pid: number, withExitedChildren = false): number {
  const stat = readProc(pid, 'stat');
  if (!stat) return 0;
  // Fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = Number(fields[11]) + Number(fields[12]);
  return withExitedChildren ? own + Number(fields[13]) + Number(fields[14]) : own;
}

/** What the worker processes' batch lines add up to. */
export interface BatchStats {
  batches: number;
  /** Queue entries per batch (each entry runs the trigger job and, inline, the in-app job). */
  meanEntries: number;
  meanMs: number;
  p50Ms: number;
  maxMs: number;
  /** Sum of batch times over all loops of all processes: > wall time means loops overlapped. */
  busyMs: number;
}

/**
 * A worker process (`node dist/bench/worker-process.js`): started, awaited until it says `ready`, its
 * batch lines collected, stopped with SIGTERM (SIGKILL if it does not exit within 30 s).
 */
export class WorkerProcess {
  readonly batches: Array<{ jobs: number; entries: number; ms: number }> = [];
  /** Its `memory ...` lines (when started with NTF_WORKER_MEMORY_LOG_MS), with when they arrived. */
  readonly memory: Array<{ at: number; heapUsedMb: number; rssMb: number }> = [];
  readonly pid: number;
  /** When it said `ready` (Date.now()). */
  readyAt = 0;
  private readonly output: string[] = [];
  private exited = false;

  private constructor(private readonly child: ChildProcess) {
    this.pid = child.pid ?? 0;
    child.on('exit', () => (this.exited = true));
  }

  static async start(url: string, options: Partial<NotificationsModuleOptions>, extra: { nodeArgs?: string[]; env?: Record<string, string> } = {}): Promise<WorkerProcess> {
    // BENCH_WORKER_NODE_ARGS: extra node flags for the worker processes (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
    const nodeArgs = [...(extra.nodeArgs ?? []), ...(process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean)];
    const child = spawn(process.execPath, [...nodeArgs, join(__dirname, 'worker-process.js')], {
      env: { ...process.env, ...extra.env, NTF_WORKER_DATABASE_URL: url, NTF_WORKER_OPTIONS: JSON.stringify(options), NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const worker = new WorkerProcess(child);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`worker process not ready after 60 s:\n${worker.output.join('\n')}`)), 60_000);
      const onLine = (line: string) => {
        worker.output.push(line);
        if (worker.output.length > 200) worker.output.shift();
        const memory = /memory heapUsedMb=([\d.]+) rssMb=([\d.]+)/.exec(line);
        if (memory) worker.memory.push({ at: Date.now(), heapUsedMb: Number(memory[1]), rssMb: Number(memory[2]) });
        const batch = /ran (\d+) job\(s\) of (\d+) queue entr(?:y|ies) in (\d+) ms/.exec(line);
        if (batch) worker.batches.push({ jobs: Number(batch[1]), entries: Number(batch[2]), ms: Number(batch[3]) });
        if (/\bready pid=/.test(line)) {
          worker.readyAt = Date.now();
          clearTimeout(timer);
          resolve();
        }
      };
      createInterface({ input: child.stdout! }).on('line', onLine);
      createInterface({ input: child.stderr! }).on('line', onLine);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`worker process exited with ${code} before it was ready:\n${worker.output.join('\n')}`));
      });
    });
    return worker;
  }

  assertAlive(): void {
    if (this.exited) throw new Error(`a worker process died:\n${this.output.slice(-30).join('\n')}`);
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const exit = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    await exit;
    clearTimeout(timer);
  }
}


/** Batches that ran at least one job (idle polls of an empty queue log nothing). */
export function batchStats(batches: Array<{ jobs: number; entries: number; ms: number }>): BatchStats {
  const busy = batches.filter((batch) => batch.jobs > 0);
  if (!busy.length) return { batches: 0, meanEntries: 0, meanMs: 0, p50Ms: 0, maxMs: 0, busyMs: 0 };
  const times = busy.map((batch) => batch.ms).sort((a, b) => a - b);
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  return {
    batches: busy.length,
    meanEntries: round(sum(busy.map((batch) => batch.entries)) / busy.length, 1),
    meanMs: round(sum(times) / times.length, 1),
    p50Ms: times[Math.floor(times.length / 2)],
    maxMs: times[times.length - 1],
    busyMs: sum(times),
  };
}

