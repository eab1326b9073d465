import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { WorkflowEntity } from '../../lib';
import { NotificationsQueue, workerLoops } from '../../lib/delivery/notifications-queue';
import { useTestApp } from '../fixtures/app';
import { createEnvironment, type TestEnvironment } from '../fixtures/factories';
import { createWorkflow } from '../fixtures/notification.factory';
import { eventually, rows, type TestEvent, triggerBulk } from '../fixtures/pipeline';
import { WebhookReceiver } from '../fixtures/webhook-receiver';

/**
 * The process-level guarantees of the worker (DESIGN §8, issue 3 "The worker"), with real OS
 * processes: an API-only instance in jest accepts the triggers, and worker-only instances
 * (test/support/worker-process.ts) run them from the same PostgreSQL. Each worker process reports the
 * jobs it ran through its `ran N job(s)` debug lines.
 *
 * Every process gets the same queue settings (whoever boots first creates the queue with them): a job
 * held by a dead process is handed out again after `expireInSeconds`, looked for every
 * `maintenanceIntervalSeconds`.
 */
const QUEUE = { expireInSeconds: 2, maintenanceIntervalSeconds: 1, retryDelaySeconds: 0 };
const WORKER = { concurrency: 10, pollingIntervalSeconds: 0.5, batchSize: 20 };
/** How long a slow webhook takes to answer: long enough that a batch is always in flight. */
const SLOW_REPLY_MS = 300;

const REGISTER_TS = join(__dirname, '..', 'support', 'register-ts.js');
const WORKER_ENTRY = join(__dirname, '..', 'support', 'worker-process.ts');

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A worker-only host app in a child process. Its output is read line by line as it comes (a pipe
 * nobody drains would block the child): `ready`, the jobs it ran, and anything it logged as a
 * warning or an error.
 */
class WorkerProcess {
  /** Jobs this process ran, the sum of its `ran N job(s)` lines (batches that committed). */
  ran = 0;
  batches = 0;
  /** Lines logged as errors or warnings (stderr, `WARN`): a healthy run has none. */
  readonly problems: string[] = [];
  readonly ready: Promise<void>;
  readonly exited: Promise<Exit>;
  private exit?: Exit;
  private readonly child: ChildProcess;
  /** The last lines of output, for the message of a failed start. */
  private readonly tail: string[] = [];

  constructor(
    readonly name: string,
    databaseUrl: string,
    options: Record<string, unknown>,
  ) {
    this.child = spawn(process.execPath, ['-r', REGISTER_TS, WORKER_ENTRY], {
      env: { ...process.env, NTF_WORKER_DATABASE_URL: databaseUrl, NTF_WORKER_OPTIONS: JSON.stringify(options), NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      }),
    );
    this.ready = new Promise((resolve, reject) => {
      createInterface({ input: this.child.stdout! }).on('line', (text) => {
        this.remember(text);
        if (/\bready pid=\d+/.test(text)) resolve();
        const ran = /\bran (\d+) job\(s\) of \d+ queue entr/.exec(text);
        if (ran) {
          this.ran += Number(ran[1]);
          this.batches++;
        }
        if (/\sWARN\s/.test(text)) this.problems.push(text);
      });
      createInterface({ input: this.child.stderr! }).on('line', (text) => {
        this.remember(text);
        this.problems.push(text);
      });
      // Settles nothing once ready; before that, a process that dies says why.
      void this.exited.then((exit) => reject(new Error(`${this.name} exited (${exit.signal ?? exit.code}) before it was ready:\n${this.tail.join('\n')}`)));
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Sends a signal (if the process still runs) and resolves once it has exited. */
  async stop(signal: NodeJS.Signals = 'SIGKILL'): Promise<Exit> {
    if (!this.exit) this.child.kill(signal);
    return this.exited;
  }

  private remember(text: string): void {
    this.tail.push(text);
    if (this.tail.length > 40) this.tail.shift();
  }
}

/** One recipient per event, each a subscriber of its own. */
function eventsFor(workflow: string, prefix: string, count: number): TestEvent[] {
  return Array.from({ length: count }, (_, i) => ({ name: workflow, to: `${prefix}-${i}`, payload: { n: i } }));
}

describe('worker processes: an API-only instance and worker-only OS processes on one database', () => {
  const workers = new Set<WorkerProcess>();
  const killAll = async (): Promise<void> => {
    await Promise.all([...workers].map((worker) => worker.stop('SIGKILL')));
    workers.clear();
  };
  // Declared before useTestApp, so it runs before the app closes and the database is dropped (jest
  // runs afterAll hooks in declaration order): no worker process outlives the spec, whatever failed.
  afterAll(killAll);

  const t = useTestApp('fastify', { options: { worker: { enabled: false }, queue: QUEUE } });
  let env: TestEnvironment;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    env = await createEnvironment(t.moduleRef);
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    await killAll();
    // A test that failed half-way leaves runs in the queue; the next test's workers must not pick them
    // up (their job counts would be off), so unfinished entries are dropped with the processes.
    await rows(t, `DELETE FROM pgboss.job WHERE name = 'ntf_jobs' AND state < 'completed'`);
  });
  afterAll(async () => {
    await receiver?.close();
  });

  /** Starts a worker process on the spec's database; it is killed after the test even if this throws. */
  async function startWorker(name: string): Promise<WorkerProcess> {
    const worker = new WorkerProcess(name, t.db.url, { worker: WORKER, queue: QUEUE });
    workers.add(worker);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        worker.ready,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${name} was not ready within 30 s`)), 30_000);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
    return worker;
  }

  /** Triggers the events 100 per request; every event must be accepted. */
  async function trigger(events: TestEvent[]): Promise<void> {
    for (let i = 0; i < events.length; i += 100) {
      const results = await triggerBulk(t, env, events.slice(i, i + 100));
      expect(results.map((r) => r.status)).toEqual(results.map(() => 'processed'));
    }
  }

  /** Messages of a workflow's runs: how many, how many distinct jobs, and the job statuses. */
  async function progress(workflow: WorkflowEntity) {
    const [counts] = await rows<{ messages: number; message_jobs: number }>(
      t,
      `SELECT count(*)::int AS messages, count(DISTINCT m.job_id)::int AS message_jobs
         FROM ntf_message m JOIN ntf_notification n ON n.id = m.notification_id WHERE n.workflow_id = $1`,
      [workflow.id],
    );
    const statuses = await rows<{ status: string; count: number }>(t, 'SELECT status, count(*)::int AS count FROM ntf_job WHERE workflow_id = $1 GROUP BY status', [workflow.id]);
    const jobs = Object.fromEntries(statuses.map((s) => [s.status, s.count])) as Record<string, number>;
    return { ...counts, jobs, total: statuses.reduce((sum, s) => sum + s.count, 0) };
  }

  /** Waits until every job of the workflow's runs is completed and `messages` messages exist. */
  function finished(workflow: WorkflowEntity, messages: number, timeoutMs: number) {
    return eventually(
      async () => {
        const state = await progress(workflow);
        return state.messages === messages && state.jobs.completed === state.total && state;
      },
      timeoutMs,
      `${messages} messages and every job of "${workflow.identifier}" completed`,
    );
  }

  /** Notifications per (completed jobs, messages) pair: a run is either untouched or fully written. */
  async function runShapes(workflow: WorkflowEntity) {
    return rows<{ completed: number; messages: number; notifications: number }>(
      t,
      `SELECT s.completed, s.messages, count(*)::int AS notifications FROM (
         SELECT (SELECT count(*)::int FROM ntf_job j WHERE j.notification_id = n.id AND j.status = 'completed') AS completed,
                (SELECT count(*)::int FROM ntf_message m WHERE m.notification_id = n.id) AS messages
           FROM ntf_notification n WHERE n.workflow_id = $1) s
        GROUP BY s.completed, s.messages ORDER BY s.completed`,
      [workflow.id],
    );
  }

  /** Notifications that do not have exactly `expected` messages. */
  function wrongMessageCounts(workflow: WorkflowEntity, expected: number) {
    return rows(
      t,
      `SELECT n.id, count(m.id)::int AS messages FROM ntf_notification n LEFT JOIN ntf_message m ON m.notification_id = n.id
        WHERE n.workflow_id = $1 GROUP BY n.id HAVING count(m.id) <> $2`,
      [workflow.id, expected],
    );
  }

  /** The pg-boss entries of the workflow's jobs, by state, and how many were handed out more than once. */
  async function queueEntries(workflow: WorkflowEntity) {
    const found = await rows<{ state: string; count: number; redelivered: number }>(
      t,
      `SELECT q.state::text AS state, count(*)::int AS count, count(*) FILTER (WHERE q.retry_count > 0)::int AS redelivered
         FROM pgboss.job q JOIN ntf_job j ON j.id = q.data->>'jobId'
        WHERE q.name = 'ntf_jobs' AND j.workflow_id = $1 GROUP BY q.state`,
      [workflow.id],
    );
    return {
      byState: Object.fromEntries(found.map((r) => [r.state, r.count])) as Record<string, number>,
      redelivered: found.reduce((sum, r) => sum + r.redelivered, 0),
    };
  }

  /** A workflow whose first step calls a webhook that answers slowly, then writes an in-app message. */
  function slowWorkflow(identifier: string, path: string) {
    receiver.respond(path, { delayMs: SLOW_REPLY_MS });
    return createWorkflow(t.app, env.environmentId, {
      identifier,
      name: identifier,
      steps: [
        { type: 'http_request', request: { url: receiver.url(path), method: 'POST', body: '{"n": {{ payload.n }}}' } },
        { type: 'in_app', template: { content: 'Done {{ payload.n }}' } },
      ],
    });
  }

  /** The webhook calls received on a path, by idempotency key (the http_request job's id). */
  function callsByJob(path: string): Map<string, number> {
    const calls = new Map<string, number>();
    for (const request of receiver.requestsTo(path)) {
      const key = String(request.headers['idempotency-key']);
      calls.set(key, (calls.get(key) ?? 0) + 1);
    }
    return calls;
  }

  /** Waits for the next webhook call on `path` and returns its job id: a batch is in flight right now. */
  async function nextCall(path: string): Promise<string> {
    const seen = receiver.requests.length;
    await receiver.waitFor(seen + 1, 10_000);
    const call = receiver.requests.slice(seen).find((request) => request.path === path);
    if (!call) throw new Error(`no call on ${path}`);
    return String(call.headers['idempotency-key']);
  }

  it('an API-only instance accepts triggers and runs nothing; a worker process started later delivers everything', async () => {
    const workflow = await createWorkflow(t.app, env.environmentId, {
      identifier: 'api-only',
      name: 'API only',
      steps: [{ type: 'in_app', template: { content: 'Hello {{ subscriber.subscriberId }}' } }],
    });
    await trigger(eventsFor('api-only', 'api', 100));

    // Three polling intervals: an instance running the worker would have started by now.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const idle = await progress(workflow);
    expect(idle).toEqual({ messages: 0, message_jobs: 0, total: 200, jobs: { queued: 100, pending: 100 } });
    expect(await queueEntries(workflow)).toEqual({ byState: { created: 100 }, redelivered: 0 });

    const worker = await startWorker('worker');
    await finished(workflow, 100, 20_000);
    expect(await wrongMessageCounts(workflow, 1)).toEqual([]);
    await eventually(async () => (await queueEntries(workflow)).byState.completed === 100, 5_000, 'the queue entries completed');
    expect(await t.app.get(NotificationsQueue).countUnfinished()).toBe(0);
    await eventually(async () => worker.ran === 200, 5_000, `the worker's report of 200 jobs (has ${worker.ran})`);
    expect(worker.problems).toEqual([]);
  });

  it('two worker processes share the work and run every job exactly once', async () => {
    const workflow = await createWorkflow(t.app, env.environmentId, {
      identifier: 'shared',
      name: 'Shared',
      steps: [
        { type: 'in_app', template: { content: 'First {{ payload.n }}' } },
        { type: 'delay', metadata: { type: 'regular', amount: 1, unit: 'seconds' } },
        { type: 'in_app', template: { content: 'Second {{ payload.n }}' } },
      ],
    });
    const [a, b] = await Promise.all([startWorker('worker-a'), startWorker('worker-b')]);
    const started = Date.now();
    await trigger(eventsFor('shared', 'shared', 400));

    const done = await finished(workflow, 800, 45_000);
    const elapsed = Date.now() - started;
    // trigger, in_app, delay, in_app per notification.
    expect(done).toMatchObject({ messages: 800, message_jobs: 800, total: 1600, jobs: { completed: 1600 } });
    expect(await wrongMessageCounts(workflow, 2)).toEqual([]);
    // A trigger entry and a delayed entry per run, each completed once.
    await eventually(async () => (await queueEntries(workflow)).byState.completed === 800, 5_000, 'the queue entries completed');

    // Both processes took part, and between them ran each job exactly once: a job is counted when the
    // batch that ran it commits, and a redelivered or concurrently fetched entry finds its job done.
    await eventually(async () => a.ran + b.ran >= 1600, 5_000, `the workers' reports (have ${a.ran} + ${b.ran})`);
    expect(a.ran).toBeGreaterThan(0);
    expect(b.ran).toBeGreaterThan(0);
    expect(a.ran + b.ran).toBe(1600);
    expect([...a.problems, ...b.problems]).toEqual([]);
    process.stdout.write(`[worker-processes] shared: a ran ${a.ran} jobs in ${a.batches} batches, b ran ${b.ran} in ${b.batches}; ${elapsed} ms\n`);
  });

  it('a worker process killed with SIGKILL mid-batch loses nothing and duplicates nothing once another one takes over', async () => {
    const workflow = await slowWorkflow('crash', '/crash');
    const total = 300;
    // Queued before any worker runs, so the victim works from a full queue and is killed mid-run.
    await trigger(eventsFor('crash', 'crash', total));

    const victim = await startWorker('victim');
    await eventually(async () => (await progress(workflow)).messages >= 40, 20_000, 'the first messages');
    const inFlight = await nextCall('/crash');
    expect(await victim.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });

    // What the dead process left: runs are either untouched or complete (a batch is one transaction),
    // the call it had in flight wrote nothing, and its batches' entries are still held (`active`).
    const left = await progress(workflow);
    expect(left.messages).toBeGreaterThan(0);
    expect(left.messages).toBeLessThan(total);
    expect(left.message_jobs).toBe(left.messages);
    expect(await runShapes(workflow)).toEqual([
      { completed: 0, messages: 0, notifications: total - left.messages },
      { completed: 3, messages: 1, notifications: left.messages },
    ]);
    expect(Object.keys(left.jobs).sort()).toEqual(['completed', 'pending', 'queued']);
    const [lost] = await rows<{ status: string; messages: number }>(
      t,
      'SELECT j.status, (SELECT count(*)::int FROM ntf_message m WHERE m.notification_id = j.notification_id) AS messages FROM ntf_job j WHERE j.id = $1',
      [inFlight],
    );
    expect(lost).toEqual({ status: 'pending', messages: 0 });
    const held = (await queueEntries(workflow)).byState.active ?? 0;
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(workerLoops(WORKER).loops * WORKER.batchSize);

    const successor = await startWorker('successor');
    const restarted = Date.now();
    await finished(workflow, total, 45_000);
    const recovery = Date.now() - restarted;

    // Exactly once in the database: one message per run, every job completed.
    expect(await progress(workflow)).toMatchObject({ messages: total, message_jobs: total, total: 3 * total });
    expect(await wrongMessageCounts(workflow, 1)).toEqual([]);
    await eventually(async () => (await queueEntries(workflow)).byState.completed === total, 5_000, 'the queue entries completed');
    const { redelivered } = await queueEntries(workflow);
    expect(redelivered).toBeGreaterThanOrEqual(1);

    // At least once outside it: every call made, the one cut off by the crash made again.
    const calls = callsByJob('/crash');
    const httpJobs = await rows<{ id: string }>(t, `SELECT id FROM ntf_job WHERE workflow_id = $1 AND type = 'http_request'`, [workflow.id]);
    expect([...calls.keys()].sort()).toEqual(httpJobs.map((j) => j.id).sort());
    expect(calls.get(inFlight)).toBeGreaterThanOrEqual(2);
    const repeated = [...calls.values()].filter((n) => n > 1).length;
    expect(successor.problems).toEqual([]);
    process.stdout.write(
      `[worker-processes] crash: killed at ${left.messages}/${total} messages with ${held} entries held; ` +
        `${redelivered} entries redelivered, ${repeated} webhook calls repeated; victim ran ${victim.ran} jobs, successor ${successor.ran}; ` +
        `recovered in ${recovery} ms\n`,
    );
  });

  it('SIGTERM stops a worker process cleanly: the batch in flight finishes, exit code 0, and a restart finishes the rest', async () => {
    const workflow = await slowWorkflow('graceful', '/graceful');
    const total = 200;
    await trigger(eventsFor('graceful', 'graceful', total));

    const stopping = await startWorker('stopping');
    await eventually(async () => (await progress(workflow)).messages >= 40, 20_000, 'the first messages');
    const inFlight = await nextCall('/graceful');
    const signalled = Date.now();
    const exit = await stopping.stop('SIGTERM');
    const stopMs = Date.now() - signalled;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(stopMs).toBeLessThan(10_000);

    // The batch it was running committed before it exited, and no entry is left held by it.
    const [finishedCall] = await rows<{ status: string; messages: number }>(
      t,
      'SELECT j.status, (SELECT count(*)::int FROM ntf_message m WHERE m.notification_id = j.notification_id) AS messages FROM ntf_job j WHERE j.id = $1',
      [inFlight],
    );
    expect(finishedCall).toEqual({ status: 'completed', messages: 1 });
    const left = await progress(workflow);
    expect(left.messages).toBeLessThan(total);
    expect((await queueEntries(workflow)).byState.active).toBeUndefined();
    expect(stopping.problems).toEqual([]);

    const restarted = await startWorker('restarted');
    await finished(workflow, total, 30_000);
    expect(await progress(workflow)).toMatchObject({ messages: total, message_jobs: total, total: 3 * total });
    expect(await wrongMessageCounts(workflow, 1)).toEqual([]);
    // Nothing had to be redelivered, so no webhook was called twice.
    const calls = callsByJob('/graceful');
    expect(calls.size).toBe(total);
    expect([...calls.values()].every((n) => n === 1)).toBe(true);
    await eventually(async () => (await queueEntries(workflow)).byState.completed === total, 5_000, 'the queue entries completed');
    expect(restarted.problems).toEqual([]);
    process.stdout.write(
      `[worker-processes] graceful: SIGTERM at ${left.messages}/${total} messages, exit 0 after ${stopMs} ms; ` +
        `redelivered ${(await queueEntries(workflow)).redelivered}; stopping ran ${stopping.ran} jobs, restarted ${restarted.ran}\n`,
    );
  });
});
