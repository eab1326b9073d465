import type { Type } from '@nestjs/common';
import type { DeliveryProvider } from './providers/delivery-provider';
import type { WorkflowDefinition } from './workflows/workflow-definition';

/**
 * Who a `Bearer` token belongs to, as decided by the host's `sessionAuth` callback: a dashboard user
 * acting in one environment of an organisation.
 * @publicApi
 */
export interface SessionPrincipal {
  organizationId: string;
  environmentId: string;
  userId?: string;
}

/**
 * Options of {@link NotificationsModule}. Everything here may come from an async factory.
 * @publicApi
 */
export interface NotificationsModuleOptions {
  /**
   * Secret that encrypts integration credentials and channel-connection tokens at rest
   * (AES-256-GCM, key derived with scrypt). At least 16 characters. Required.
   * Changing it makes stored secrets unreadable.
   */
  encryptionKey: string;
  /** Code-first workflows, stored in every environment at boot and when an environment is created. */
  workflows?: WorkflowDefinition[];
  /**
   * Resolves `Authorization: Bearer <token>` (dashboard callers) to a principal, or null to refuse.
   * Without it, Bearer tokens are refused. Session callers see their organisation's integrations with
   * decrypted credentials.
   */
  sessionAuth?: (bearerToken: string) => Promise<SessionPrincipal | null>;
  /**
   * Extra delivery providers: classes extending {@link DeliveryProvider}. A provider whose
   * `providerId` is one of the built-in ones (`email-webhook`, `generic-sms`, `chat-webhook`,
   * `push-webhook`) replaces it. The module instantiates each class once through Nest DI, in its own
   * scope: constructors may inject the module's providers, `extraProviders`, the modules given in
   * `forRootAsync({ imports })`, and global modules. Nest lifecycle hooks are not called on them.
   */
  providers?: Type<DeliveryProvider>[];
  /** Idempotency of POST and PATCH requests carrying an `Idempotency-Key`. */
  idempotency?: {
    /** @default true */
    enabled?: boolean;
    /** How long a completed request is replayed. @default 86400 (24 h) */
    ttlSeconds?: number;
    /** How long a request in flight blocks its key before a crashed owner's key is reclaimed. @default 300 */
    lockSeconds?: number;
  };
  /**
   * The delivery worker: runs the jobs of triggered workflows from the queue. Every instance of the
   * host app with the worker enabled takes part; PostgreSQL hands each job to exactly one of them.
   */
  worker?: {
    /** False gives an API-only instance: triggers are accepted and queued, another instance runs them. @default true */
    enabled?: boolean;
    /**
     * Provider sends one process keeps in flight at most. The worker runs `ceil(4 × concurrency /
     * batchSize)` polling loops of up to `min(batchSize, concurrency)` jobs, so that while some batches
     * do their database work, the others' sends keep the slots full; each running loop holds one
     * database connection. @default 50
     */
    concurrency?: number;
    /** Jobs a loop takes from the queue at once and runs set-based. @default 50 */
    batchSize?: number;
    /** How often an idle loop looks for due jobs (pg-boss allows at least 0.5). @default 0.5 */
    pollingIntervalSeconds?: number;
  };
  /** Sends through providers (email, SMS, chat, push). */
  delivery?: {
    /** How long one send may take before it fails as transient. @default 10 */
    timeoutSeconds?: number;
    /**
     * Retries of a send that failed transiently (network error, timeout, 429, 5xx), through the
     * queue. Permanent failures (other 4xx) are never retried. @default 3
     */
    retryLimit?: number;
    /** Wait before the first retry; doubled for each next one (with ±20% jitter), or the vendor's `Retry-After` when longer. @default 10 */
    retryDelaySeconds?: number;
    /** The longest wait between two tries. @default 600 */
    maxRetryDelaySeconds?: number;
  };
  /** The job queue (pg-boss, in the same PostgreSQL). */
  queue?: {
    /**
     * A separate connection for the queue. By default the queue runs its statements on the ORM's
     * connection pool, which keeps enqueueing inside the trigger's transaction.
     */
    connectionString?: string;
    /** The schema pg-boss keeps its tables in. @default 'pgboss' */
    schema?: string;
    /** A job a worker has held this long is considered lost (crashed worker) and handed out again. @default 300 */
    expireInSeconds?: number;
    /** How often pg-boss looks for lost jobs and archives old ones. @default 60 */
    maintenanceIntervalSeconds?: number;
    /** Retries of a batch that failed with an unexpected error (a failed send is not one). @default 5 */
    retryLimit?: number;
    /** Seconds before such a retry. @default 5 */
    retryDelaySeconds?: number;
  };
  /** API-key authentication. */
  auth?: {
    /** How long a resolved API key is cached in memory; a revoked key works at most this long. @default 10 */
    apiKeyCacheSeconds?: number;
  };
}

/**
 * Options that change the module's shape, so they are read before any factory runs and never come
 * from `useFactory` (see nestjs/nest#13372).
 * @publicApi
 */
export interface NotificationsModuleExtras {
  /** Register the module globally. @default false */
  isGlobal?: boolean;
  /** Serve the REST API. False gives a module with services only (for worker instances). @default true */
  registerControllers?: boolean;
  /** The MikroORM context (`contextName` of `MikroOrmModule.forRoot`) holding the module's entities. */
  contextName?: string;
}

/** The options after defaults and validation; what the module's classes inject. */
export interface ResolvedNotificationsOptions {
  readonly encryptionKey: string;
  readonly workflows: readonly WorkflowDefinition[];
  readonly sessionAuth?: (bearerToken: string) => Promise<SessionPrincipal | null>;
  /** The host's delivery provider classes (`options.providers`), in the given order. */
  readonly providers: readonly Type<DeliveryProvider>[];
  readonly idempotency: { readonly enabled: boolean; readonly ttlSeconds: number; readonly lockSeconds: number };
  readonly auth: { readonly apiKeyCacheSeconds: number };
  readonly worker: { readonly enabled: boolean; readonly concurrency: number; readonly batchSize: number; readonly pollingIntervalSeconds: number };
  readonly delivery: { readonly timeoutSeconds: number; readonly retryLimit: number; readonly retryDelaySeconds: number; readonly maxRetryDelaySeconds: number };
  readonly queue: {
    readonly connectionString?: string;
    readonly schema: string;
    readonly expireInSeconds: number;
    readonly maintenanceIntervalSeconds: number;
    readonly retryLimit: number;
    readonly retryDelaySeconds: number;
  };
}

/**
 * Thrown at boot when the options cannot work. The message says what is wrong and how to fix it.
 * @publicApi
 */
export class InvalidNotificationsOptionsError extends Error {
  constructor(problem: string) {
    super(`Invalid NotificationsModule options: ${problem}`);
    this.name = 'InvalidNotificationsOptionsError';
  }
}

/** Applies defaults, validates, and freezes. */
export function resolveNotificationsOptions(options: NotificationsModuleOptions): ResolvedNotificationsOptions {
  if (!options || typeof options.encryptionKey !== 'string' || options.encryptionKey.length < 16) {
    throw new InvalidNotificationsOptionsError(
      '`encryptionKey` must be a string of at least 16 characters (it encrypts credentials at rest). ' +
        'Generate one with `openssl rand -base64 32` and keep it in your secret store.',
    );
  }
  const identifiers = new Set<string>();
  for (const workflow of options.workflows ?? []) {
    if (!workflow?.identifier || !Array.isArray(workflow.steps)) {
      throw new InvalidNotificationsOptionsError('every entry of `workflows` needs an `identifier` and a `steps` array.');
    }
    if (identifiers.has(workflow.identifier)) {
      throw new InvalidNotificationsOptionsError(`workflow identifier "${workflow.identifier}" appears twice in \`workflows\`.`);
    }
    identifiers.add(workflow.identifier);
  }
  const ttlSeconds = options.idempotency?.ttlSeconds ?? 86_400;
  const lockSeconds = options.idempotency?.lockSeconds ?? 300;
  const apiKeyCacheSeconds = options.auth?.apiKeyCacheSeconds ?? 10;
  for (const [name, value] of [['idempotency.ttlSeconds', ttlSeconds], ['idempotency.lockSeconds', lockSeconds], ['auth.apiKeyCacheSeconds', apiKeyCacheSeconds]] as const) {
    if (!Number.isFinite(value) || value < 0) {
      throw new InvalidNotificationsOptionsError(`\`${name}\` must be a non-negative number of seconds.`);
    }
  }
  const worker = {
    enabled: options.worker?.enabled ?? true,
    concurrency: options.worker?.concurrency ?? 50,
    batchSize: options.worker?.batchSize ?? 50,
    pollingIntervalSeconds: options.worker?.pollingIntervalSeconds ?? 0.5,
  };
  const queue = {
    connectionString: options.queue?.connectionString,
    schema: options.queue?.schema ?? 'pgboss',
    expireInSeconds: options.queue?.expireInSeconds ?? 300,
    maintenanceIntervalSeconds: options.queue?.maintenanceIntervalSeconds ?? 60,
    retryLimit: options.queue?.retryLimit ?? 5,
    retryDelaySeconds: options.queue?.retryDelaySeconds ?? 5,
  };
  for (const [name, value, min] of [
    ['worker.concurrency', worker.concurrency, 1],
    ['worker.batchSize', worker.batchSize, 1],
    ['queue.expireInSeconds', queue.expireInSeconds, 1],
    ['queue.maintenanceIntervalSeconds', queue.maintenanceIntervalSeconds, 1],
    ['queue.retryLimit', queue.retryLimit, 0],
    ['queue.retryDelaySeconds', queue.retryDelaySeconds, 0],
  ] as const) {
    if (!Number.isInteger(value) || value < min) throw new InvalidNotificationsOptionsError(`\`${name}\` must be an integer of at least ${min}.`);
  }
  const delivery = {
    timeoutSeconds: options.delivery?.timeoutSeconds ?? 10,
    retryLimit: options.delivery?.retryLimit ?? 3,
    retryDelaySeconds: options.delivery?.retryDelaySeconds ?? 10,
    maxRetryDelaySeconds: options.delivery?.maxRetryDelaySeconds ?? 600,
  };
  if (!Number.isInteger(delivery.retryLimit) || delivery.retryLimit < 0) {
    throw new InvalidNotificationsOptionsError('`delivery.retryLimit` must be an integer of at least 0.');
  }
  for (const [name, value] of [
    ['delivery.timeoutSeconds', delivery.timeoutSeconds],
    ['delivery.retryDelaySeconds', delivery.retryDelaySeconds],
    ['delivery.maxRetryDelaySeconds', delivery.maxRetryDelaySeconds],
  ] as const) {
    if (!Number.isFinite(value) || value <= 0) throw new InvalidNotificationsOptionsError(`\`${name}\` must be a positive number of seconds.`);
  }
  if (!(worker.pollingIntervalSeconds >= 0.5)) {
    throw new InvalidNotificationsOptionsError('`worker.pollingIntervalSeconds` must be at least 0.5 (pg-boss polls no faster).');
  }
  if (!/^[a-z_][a-z0-9_]*$/i.test(queue.schema)) throw new InvalidNotificationsOptionsError('`queue.schema` must be a plain SQL identifier.');
  return Object.freeze({
    encryptionKey: options.encryptionKey,
    workflows: Object.freeze([...(options.workflows ?? [])]),
    sessionAuth: options.sessionAuth,
    providers: resolveProviderClasses(options.providers),
    idempotency: Object.freeze({ enabled: options.idempotency?.enabled ?? true, ttlSeconds, lockSeconds }),
    auth: Object.freeze({ apiKeyCacheSeconds }),
    worker: Object.freeze(worker),
    delivery: Object.freeze(delivery),
    queue: Object.freeze(queue),
  });
}

/** Checks `options.providers`: a list of classes with a `send` method (a class, not an instance). */
function resolveProviderClasses(providers: NotificationsModuleOptions['providers']): readonly Type<DeliveryProvider>[] {
  if (providers === undefined) return Object.freeze([]);
  if (!Array.isArray(providers)) {
    throw new InvalidNotificationsOptionsError('`providers` must be an array of DeliveryProvider classes.');
  }
  providers.forEach((provider: unknown, index) => {
    // An instance or a factory function here would only fail later, deep in DI; name the entry now.
    const isClass = typeof provider === 'function' && typeof (provider.prototype as { send?: unknown } | undefined)?.send === 'function';
    if (!isClass) {
      throw new InvalidNotificationsOptionsError(
        `\`providers[${index}]\` must be a class extending DeliveryProvider (pass the class itself, e.g. \`providers: [MyProvider]\`).`,
      );
    }
  });
  return Object.freeze([...providers]);
}
