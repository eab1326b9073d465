import { createHash } from 'node:crypto';
import {
  BadRequestException,
  type CallHandler,
  ConflictException,
  type ExecutionContext,
  HttpException,
  Injectable,
  type NestInterceptor,
  UnprocessableEntityException,
} from '@nestjs/common';
import { catchError, from, mergeMap, type Observable, of } from 'rxjs';
import { principalOf } from '../auth/principal';
import { MESSAGES } from '../common/errors/messages';
import { InjectNotificationsOptions } from '../notifications.constants';
import type { ResolvedNotificationsOptions } from '../notifications.options';
import { IdempotencyService } from './idempotency.service';

type AnyRequest = {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
  originalUrl?: string;
  url?: string;
};
type AnyResponse = { header(name: string, value: string): unknown; statusCode: number; status?: unknown; code?: unknown };

const MAX_KEY_LENGTH = 255;

/**
 * Makes POST and PATCH requests that carry an `Idempotency-Key` header safe to retry (DESIGN §6):
 * a completed request is replayed with `Idempotency-Replay: true`; the key reused for another request
 * is a 422; a key whose first request is still running is a 409 with `Retry-After: 1`; a key over
 * 255 characters is a 400. GET requests ignore the header. Runs after {@link ApiKeyGuard}, so keys are
 * scoped to the caller's environment.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly idempotency: IdempotencyService,
    @InjectNotificationsOptions() private readonly options: ResolvedNotificationsOptions,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<AnyRequest>();
    const response = http.getResponse<AnyResponse>();
    const raw = request.headers['idempotency-key'];
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (!this.options.idempotency.enabled || key === undefined || (request.method !== 'POST' && request.method !== 'PATCH')) {
      return next.handle();
    }
    if (key.length > MAX_KEY_LENGTH) throw new BadRequestException(MESSAGES.idempotencyKeyTooLong(key.slice(0, 300)));
    const principal = principalOf(request);
    if (!principal) return next.handle();
    response.header('Idempotency-Key', key);
    const path = (request.originalUrl ?? request.url ?? '').split('?')[0];
    const fingerprint = createHash('sha256')
      .update(`${request.method} ${path}\n${JSON.stringify(request.body ?? null)}`)
      .digest('hex');

    return from(this.idempotency.begin(principal.environmentId, key, fingerprint)).pipe(
      mergeMap((decision) => {
        switch (decision.kind) {
          case 'mismatch':
            throw new UnprocessableEntityException(MESSAGES.idempotencyBodyMismatch(key));
          case 'in_progress':
            response.header('Retry-After', '1');
            throw new ConflictException(MESSAGES.idempotencyInProgress(key));
          case 'replay':
            response.header('Idempotency-Replay', 'true');
            if (decision.statusCode >= 400) throw new HttpException(decision.body as object, decision.statusCode);
            setStatus(response, decision.statusCode);
            return of(decision.body);
          case 'proceed':
            return this.runAndRecord(decision.recordId, response, next);
        }
      }),
    );
  }

  private runAndRecord(recordId: string, response: AnyResponse, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      // The record is completed before the response leaves, so an immediate retry is a replay.
      mergeMap(async (body) => {
        await this.idempotency.complete(recordId, response.statusCode, body);
        return body;
      }),
      catchError(async (error: unknown) => {
        if (error instanceof HttpException && error.getStatus() < 500) {
          await this.idempotency.complete(recordId, error.getStatus(), error.getResponse());
        } else {
          // A server fault says nothing about the request: free the key so that a retry runs again.
          await this.idempotency.release(recordId).catch(() => undefined);
        }
        throw error;
      }),
    );
  }
}

/** Sets the status code on an Express response or a Fastify reply. */
function setStatus(response: AnyResponse, statusCode: number): void {
  if (typeof response.code === 'function') (response.code as (c: number) => unknown).call(response, statusCode);
  else if (typeof response.status === 'function') (response.status as (c: number) => unknown).call(response, statusCode);
}
