import type { IntegrationCredentials } from '../integrations/integrations.service';
import { DeliveryError } from './delivery-provider';
import { credentialString } from './webhook-request';

/**
 * What the AWS providers (SES, SNS) share: their SDK client settings ({@link awsClientSettings}) and
 * the translation of AWS SDK errors into the provider contract ({@link awsDeliveryError}). Their
 * clients are cached with the {@link ClientCache} of `client-cache.ts`.
 */

/** How long an AWS client may stay unused before it is destroyed (its keep-alive sockets with it). */
export const AWS_CLIENT_IDLE_MS = 5 * 60_000;
/** At most this many AWS clients per provider (one per distinct set of credentials) are kept. */
export const AWS_CLIENT_CACHE_SIZE = 100;

/**
 * The configuration of an AWS SDK v3 client (`SESv2Client`, `SNSClient`) of an integration. Plain
 * data, so it is also the {@link ClientCache} key.
 */
export interface AwsClientSettings {
  region: string;
  /** `credentials.baseUrl`: a private endpoint, a VPC endpoint, or a local server in tests. */
  endpoint?: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** No retries inside the SDK: transient failures are retried through the queue, where each retry is logged. */
  maxAttempts: 1;
  /** `NodeHttpHandler` options (the SDK builds its handler from them). */
  requestHandler: { connectionTimeout: number; requestTimeout: number; throwOnRequestTimeout: true };
}

/**
 * The AWS client settings of an integration, with the credential names of Novu's SES / SNS configs:
 * `apiKey` = access key id, `secretKey` = secret access key, `region`, and `baseUrl` = the endpoint.
 * @param providerId Named in the error when a credential is missing.
 * @param timeoutMs The message's `timeoutMs`: bounds connecting and the whole request.
 * @throws DeliveryError (permanent, `missing_credentials`) when a credential is missing.
 */
export function awsClientSettings(providerId: string, credentials: IntegrationCredentials, timeoutMs: number): AwsClientSettings {
  const missing = ['apiKey', 'secretKey', 'region'].filter((name) => !credentialString(credentials, name));
  if (missing.length) {
    throw new DeliveryError(`The ${providerId} integration has no ${missing.map((name) => `credentials.${name}`).join(', ')}`, undefined, {
      code: 'missing_credentials',
    });
  }
  const endpoint = credentialString(credentials, 'baseUrl')?.trim();
  return {
    region: (credentials.region as string).trim(),
    ...(endpoint ? { endpoint } : {}),
    credentials: { accessKeyId: (credentials.apiKey as string).trim(), secretAccessKey: credentials.secretKey as string },
    maxAttempts: 1,
    requestHandler: { connectionTimeout: timeoutMs, requestTimeout: timeoutMs, throwOnRequestTimeout: true },
  };
}

/**
 * Error codes the AWS SDK's own retry strategy treats as throttling (`@smithy/service-error-classification`),
 * plus SNS's `Throttled` query error code: the request may pass later.
 */
const AWS_THROTTLING_CODES = new Set([
  'BandwidthLimitExceeded',
  'EC2ThrottledException',
  'LimitExceededException',
  'PriorRequestNotComplete',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ThrottledException',
  'Throttled',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TransactionInProgressException',
]);
/** Error codes AWS answers with when the service, not the request, failed. */
const AWS_TRANSIENT_CODES = new Set(['RequestTimeout', 'RequestTimeoutException', 'InternalFailure', 'InternalError', 'ServiceUnavailable']);
/** Socket errors of a request that never got an answer. */
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
]);

/** What an AWS failure leaves in `DeliveryError.raw`. */
export interface AwsErrorRaw {
  /** The HTTP status, when AWS answered. */
  status?: number;
  /** AWS's error code (`MessageRejected`, `InvalidParameter`, `Throttling`), or the socket error's. */
  code?: string;
  message?: string;
  /** `client` or `server`, as the SDK classifies modeled errors. */
  fault?: string;
  requestId?: string;
}

/**
 * Translates what an AWS SDK `client.send` threw into a {@link DeliveryError}:
 * - an AWS answer (`$metadata.httpStatusCode`): `<vendor> responded with <status> <code>: <message>`,
 *   transient for 5xx, 408, 429, a `server` fault, throttling codes (`Throttling`, `Throttled`,
 *   `TooManyRequestsException`, ...) and `$retryable` errors; permanent otherwise (`MessageRejected`,
 *   `InvalidParameter`, bad credentials...). `code` = AWS's error code.
 * - no answer: a timeout (`TimeoutError`, or the whole-send `AbortSignal`) or a socket error → transient;
 *   anything else (the SDK refusing the input or the configuration) → permanent.
 */
export function awsDeliveryError(vendor: string, error: unknown, timeoutMs: number): DeliveryError {
  const failure = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as AwsSdkErrorLike;
  const status = failure.$metadata?.httpStatusCode;
  const code = failure.Code ?? failure.name;
  const message = typeof failure.message === 'string' ? failure.message : undefined;
  if (typeof status === 'number') {
    const raw = compact<AwsErrorRaw>({ status, code, message, fault: failure.$fault, requestId: failure.$metadata?.requestId });
    const transient =
      status >= 500 ||
      status === 408 ||
      status === 429 ||
      failure.$fault === 'server' ||
      Boolean(failure.$retryable) ||
      (code !== undefined && (AWS_THROTTLING_CODES.has(code) || AWS_TRANSIENT_CODES.has(code)));
    return new DeliveryError(`${vendor} responded with ${status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`, raw, { transient, code });
  }
  if (failure.name === 'TimeoutError' || failure.name === 'AbortError') {
    return new DeliveryError(`${vendor} did not answer within ${timeoutMs} ms`, { code: failure.name, message }, { transient: true, code: 'timeout' });
  }
  const socketCode = typeof failure.code === 'string' ? failure.code : networkCodeIn(message);
  if (socketCode && NETWORK_ERROR_CODES.has(socketCode)) {
    return new DeliveryError(`${vendor} request failed: ${message ?? socketCode}`, { code: socketCode, message }, { transient: true, code: 'network_error' });
  }
  return new DeliveryError(`${vendor} request failed: ${message ?? 'unknown error'}`, compact<AwsErrorRaw>({ code: socketCode ?? failure.name, message }), {
    code: socketCode ?? failure.name,
  });
}

/**
 * The socket error code quoted in a message. The SDK's retry middleware turns an error that is not an
 * `instanceof Error` of its own realm (Node's socket errors under test runners that sandbox modules,
 * such as jest) into `AWS SDK error wrapper for Error: connect ECONNREFUSED ...`, dropping `code`.
 */
function networkCodeIn(message: string | undefined): string | undefined {
  return message?.match(/\b(E[A-Z]{4,}|ERR_SOCKET_CONNECTION_TIMEOUT)\b/)?.[1];
}

/** The fields of an AWS SDK v3 error (a `ServiceException`, or a socket error) this module reads. */
interface AwsSdkErrorLike {
  name?: string;
  message?: unknown;
  /** Socket errors. */
  code?: unknown;
  /** Query-protocol errors (SNS) also carry the raw `<Code>`. */
  Code?: string;
  $fault?: string;
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: number; requestId?: string };
}

/** `value` without its undefined fields (for `toEqual`-friendly raw objects). */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
