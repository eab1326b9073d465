/** Deepest nesting a feed payload filter may have; deeper objects are refused rather than sent to PostgreSQL. */
const MAX_PAYLOAD_DEPTH = 32;

/**
 * Base64 text (standard or URL-safe alphabet, padding optional). Node's decoder skips characters outside
 * the alphabet silently, so they are refused up front.
 */
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** A UTF-16 surrogate without its pair: valid in a JS string, refused by PostgreSQL's jsonb. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The outcome of {@link decodeFeedPayload}: the partial payload, or why the text is not one. */
export type DecodedFeedPayload = { value: Record<string, unknown> } | { problem: string };

/**
 * Decodes the feed's `payload` filter: base64 of a JSON object (`btoa(JSON.stringify({ foo: 123 }))`).
 * Shared by the query DTO and {@link MessagesService.listFeed}, so a host calling the service directly
 * gets the same 422 as an HTTP caller. Values PostgreSQL's jsonb cannot hold (NUL characters, lone
 * surrogates) are refused here: otherwise they would fail inside the query as a 500.
 */
export function decodeFeedPayload(text: unknown): DecodedFeedPayload {
  const problem = { problem: 'payload must be a base64-encoded JSON object' };
  if (typeof text !== 'string' || text === '' || !BASE64.test(text)) return problem;
  let parsed: unknown;
  try {
    // Node's base64 decoder reads both alphabets.
    parsed = JSON.parse(Buffer.from(text, 'base64').toString('utf8'));
  } catch {
    return problem;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return problem;
  if (!storable(parsed, 0)) return { problem: 'payload must not contain NUL characters or lone surrogates, nor be nested too deeply' };
  return { value: parsed as Record<string, unknown> };
}

function storable(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return !value.includes('\u0000') && !LONE_SURROGATE.test(value);
  if (value === null || typeof value !== 'object') return true;
  if (depth >= MAX_PAYLOAD_DEPTH) return false;
  for (const [key, child] of Object.entries(value)) {
    if (!storable(key, depth) || !storable(child, depth + 1)) return false;
  }
  return true;
}
