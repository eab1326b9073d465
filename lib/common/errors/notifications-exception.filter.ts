import { randomUUID } from 'node:crypto';
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { MESSAGES } from './messages';

/** The contract's error body (`ErrorDto`, and `ValidationErrorDto` when `errors` is present). */
export interface ErrorBody {
  statusCode: number;
  timestamp: string;
  path: string;
  message?: unknown;
  error?: string;
  errors?: Record<string, { messages: string[]; value?: unknown }>;
  errorId?: string;
}

type HttpReply = {
  status?: (code: number) => HttpReply;
  json?: (body: unknown) => void;
  code?: (code: number) => HttpReply;
  send?: (body: unknown) => void;
  header?: (name: string, value: string) => HttpReply;
  raw?: unknown;
};

/**
 * Turns every error of the module's routes into the contract's error shape:
 * `{ statusCode, timestamp, path, message, error }`, plus `errors` for 422s and `errorId` for 500s.
 *
 * It is applied to the module's own controllers. Errors raised before routing (a body that is not
 * JSON, a body over the size limit) reach only global filters; hosts that want those in the same shape
 * register it globally too: `app.useGlobalFilters(new NotificationsExceptionFilter())` (the sample app
 * does). Works on Express and Fastify.
 * @publicApi
 */
@Catch()
export class NotificationsExceptionFilter implements ExceptionFilter {
  protected readonly logger = new Logger('NotificationsExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<{ originalUrl?: string; url?: string; method?: string }>();
    const reply = http.getResponse<HttpReply>();
    const body = this.toBody(exception, request.originalUrl ?? request.url ?? '', request.method ?? '');
    if (typeof reply.code === 'function' && typeof reply.send === 'function' && reply.raw) {
      reply.code(body.statusCode).header?.('content-type', 'application/json; charset=utf-8');
      reply.send(body);
    } else if (typeof reply.status === 'function') {
      reply.status(body.statusCode).json?.(body);
    }
  }

  /** Builds the body; overridable by hosts that subclass the filter. */
  protected toBody(exception: unknown, path: string, method: string): ErrorBody {
    const base = { timestamp: new Date().toISOString(), path };
    if (exception instanceof HttpException) {
      const statusCode = exception.getStatus();
      const response = exception.getResponse();
      if (typeof response === 'string') {
        return { statusCode, ...base, message: response, error: reasonPhrase(statusCode) };
      }
      return { ...base, error: reasonPhrase(statusCode), ...(response as object), statusCode };
    }
    const clientStatus = clientErrorStatus(exception);
    if (clientStatus) {
      // Errors of the HTTP layer itself (Fastify's body parser, Express's body-parser limits) carry
      // their own 4xx status: they are the client's fault and are reported as such, not as 500s.
      const message = exception instanceof Error ? exception.message : String(exception);
      return { statusCode: clientStatus, ...base, message, error: reasonPhrase(clientStatus) };
    }
    const errorId = randomUUID();
    this.logger.error(
      `errorId=${errorId} ${method} ${path}: ${exception instanceof Error ? exception.message : String(exception)}`,
      exception instanceof Error ? exception.stack : undefined,
    );
    return { statusCode: HttpStatus.INTERNAL_SERVER_ERROR, ...base, message: MESSAGES.internalError, errorId };
  }
}

function clientErrorStatus(exception: unknown): number | undefined {
  if (!exception || typeof exception !== 'object') return undefined;
  const candidate = (exception as { statusCode?: unknown; status?: unknown }).statusCode ?? (exception as { status?: unknown }).status;
  return typeof candidate === 'number' && candidate >= 400 && candidate < 500 ? candidate : undefined;
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

function reasonPhrase(status: number): string {
  return REASONS[status] ?? (status >= 500 ? 'Server Error' : 'Client Error');
}
