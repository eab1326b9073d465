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
  /** Idempotency of POST and PATCH requests carrying an `Idempotency-Key`. */
  idempotency?: {
    /** @default true */
    enabled?: boolean;
    /** How long a completed request is replayed. @default 86400 (24 h) */
    ttlSeconds?: number;
    /** How long a request in flight blocks its key before a crashed owner's key is reclaimed. @default 300 */
    lockSeconds?: number;
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
  readonly idempotency: { readonly enabled: boolean; readonly ttlSeconds: number; readonly lockSeconds: number };
  readonly auth: { readonly apiKeyCacheSeconds: number };
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
  return Object.freeze({
    encryptionKey: options.encryptionKey,
    workflows: Object.freeze([...(options.workflows ?? [])]),
    sessionAuth: options.sessionAuth,
    idempotency: Object.freeze({ enabled: options.idempotency?.enabled ?? true, ttlSeconds, lockSeconds }),
    auth: Object.freeze({ apiKeyCacheSeconds }),
  });
}
