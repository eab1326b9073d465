import type { IntegrationCredentials } from '../integrations/integrations.service';

/** What replaces a secret found in a stored vendor answer. */
export const REDACTED = '[redacted]';

/** Secrets shorter than this are not searched for: they would match ordinary text (`true`, a port). */
const MIN_SECRET_LENGTH = 6;

/**
 * Credential names whose values are not secret and may stay in the log (sender, region, ids of the
 * app; the public fields of a Google service account), so that vendor answers naming them stay readable.
 */
const PUBLIC_CREDENTIALS = new Set([
  'from', 'senderName', 'region', 'host', 'port', 'baseUrl', 'domain', 'projectName', 'applicationId', 'senderId',
  'type', 'project_id', 'client_email', 'client_id', 'auth_uri', 'token_uri', 'auth_provider_x509_cert_url', 'client_x509_cert_url', 'universe_domain',
]);

/**
 * The secret strings of an integration's credentials (and any extra secrets, e.g. a channel
 * connection's access token), for {@link redactSecrets}. Nested objects (a service account) are walked.
 */
export function collectSecrets(credentials: IntegrationCredentials, extra: ReadonlyArray<string | undefined> = []): string[] {
  const secrets = new Set<string>();
  const walk = (value: unknown, name?: string): void => {
    if (typeof value === 'string') {
      if (name && PUBLIC_CREDENTIALS.has(name)) return;
      if (value.length >= MIN_SECRET_LENGTH) secrets.add(value);
      // A JSON credential (an FCM service account) holds its secrets inside.
      if (value.trimStart().startsWith('{')) {
        try {
          walk(JSON.parse(value));
        } catch {
          // Not JSON after all: the whole value is already listed.
        }
      }
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, nested] of Object.entries(value)) walk(nested, key);
    }
  };
  walk(credentials);
  for (const secret of extra) if (secret && secret.length >= MIN_SECRET_LENGTH) secrets.add(secret);
  // Longest first, so a secret containing another is replaced whole.
  return [...secrets].sort((a, b) => b.length - a.length);
}

/**
 * A copy of `value` (a vendor's answer, an error) with every occurrence of a secret replaced by
 * {@link REDACTED}, in strings and object keys alike. Vendors echo credentials more often than one
 * would think (an API key in an "invalid key" message, a token in a URL), and `raw` is stored in the
 * execution log, which API callers read.
 */
export function redactSecrets<T>(value: T, secrets: readonly string[]): T {
  if (!secrets.length) return value;
  const redactString = (text: string): string => {
    let result = text;
    for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    return result;
  };
  const walk = (node: unknown, depth: number): unknown => {
    if (typeof node === 'string') return redactString(node);
    if (typeof node !== 'object' || node === null || depth > 20) return node;
    if (Array.isArray(node)) return node.map((item) => walk(item, depth + 1));
    return Object.fromEntries(Object.entries(node).map(([key, nested]) => [redactString(key), walk(nested, depth + 1)]));
  };
  return walk(value, 0) as T;
}
