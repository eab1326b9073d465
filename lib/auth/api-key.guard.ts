import { type CanActivate, type ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { MESSAGES } from '../common/errors/messages';
import { InjectNotificationsOptions } from '../notifications.constants';
import type { ResolvedNotificationsOptions } from '../notifications.options';
import { ApiKeyValidator } from './api-key-validator';
import { type NotificationsPrincipal, PRINCIPAL_KEY } from './principal';

/**
 * Authenticates `Authorization: ApiKey <secret>` (through {@link ApiKeyValidator}) and
 * `Authorization: Bearer <token>` (through `options.sessionAuth`), and stores the caller's
 * {@link NotificationsPrincipal} on the request. Applied to the module's controllers only; hosts may
 * use it on their own routes, or subclass it and override a protected hook.
 * @publicApi
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    protected readonly validator: ApiKeyValidator,
    @InjectNotificationsOptions() protected readonly options: ResolvedNotificationsOptions,
  ) {}

  /** @throws UnauthorizedException with one of the contract's three messages. */
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined> }>();
    const header = this.extractAuthorization(request.headers);
    if (!header) throw this.unauthorized(MESSAGES.missingAuthorization);
    const space = header.indexOf(' ');
    const scheme = space < 0 ? header : header.slice(0, space);
    const credential = space < 0 ? '' : header.slice(space + 1).trim();
    let principal: NotificationsPrincipal;
    if (scheme === 'ApiKey') {
      principal = await this.authenticateApiKey(credential);
    } else if (scheme === 'Bearer') {
      principal = await this.authenticateSession(credential);
    } else {
      throw this.unauthorized(MESSAGES.invalidScheme(scheme.slice(0, 64)));
    }
    (request as unknown as Record<string, NotificationsPrincipal>)[PRINCIPAL_KEY] = principal;
    return true;
  }

  /** The raw Authorization header value, if any. */
  protected extractAuthorization(headers: Record<string, string | string[] | undefined>): string | undefined {
    const value = headers['authorization'];
    const header = Array.isArray(value) ? value[0] : value;
    return header?.trim() ? header.trim() : undefined;
  }

  protected async authenticateApiKey(apiKey: string): Promise<NotificationsPrincipal> {
    // Keys are 32 hex characters; anything far longer is not worth hashing.
    const found = apiKey && apiKey.length <= 512 ? await this.validator.validate(apiKey) : null;
    if (!found) throw this.unauthorized(MESSAGES.apiKeyNotFound);
    return { scheme: 'ApiKey', ...found };
  }

  protected async authenticateSession(token: string): Promise<NotificationsPrincipal> {
    if (!this.options.sessionAuth) throw this.unauthorized(MESSAGES.sessionAuthDisabled);
    const session = token ? await this.options.sessionAuth(token) : null;
    if (!session) throw this.unauthorized(MESSAGES.invalidSession);
    return { scheme: 'Bearer', ...session };
  }

  /** The error thrown for every refusal; override to change it. */
  protected unauthorized(message: string): UnauthorizedException {
    return new UnauthorizedException(message);
  }
}
