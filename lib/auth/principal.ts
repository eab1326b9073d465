import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/**
 * Who is calling: resolved by {@link ApiKeyGuard} from `ApiKey <secret>` or `Bearer <token>`.
 * Every service call is scoped to `environmentId`.
 * @publicApi
 */
export interface NotificationsPrincipal {
  scheme: 'ApiKey' | 'Bearer';
  environmentId: string;
  organizationId: string;
  /** The session user, for Bearer callers. */
  userId?: string;
  /** The key's id, for ApiKey callers. */
  apiKeyId?: string;
}

/** The request property the guard stores the principal under. */
export const PRINCIPAL_KEY = 'notificationsPrincipal';

/** Reads the principal off a request (Express or Fastify). */
export function principalOf(request: object): NotificationsPrincipal | undefined {
  return (request as Record<string, NotificationsPrincipal | undefined>)[PRINCIPAL_KEY];
}

/**
 * Parameter decorator giving the caller's {@link NotificationsPrincipal} in a guarded route.
 * @example
 * ```ts
 * @Get('me') me(@Principal() principal: NotificationsPrincipal) { ... }
 * ```
 * @publicApi
 */
export const Principal = createParamDecorator((_data: unknown, ctx: ExecutionContext): NotificationsPrincipal => {
  const principal = principalOf(ctx.switchToHttp().getRequest());
  if (!principal) throw new Error('@Principal() used on a route without ApiKeyGuard');
  return principal;
});
