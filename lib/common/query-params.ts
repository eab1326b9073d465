import { applyDecorators } from '@nestjs/common';
import { type ApiPropertyOptions, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsArray, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { type FieldErrors, RequestValidationException } from './errors/validation-errors';

// Query strings arrive as strings (or arrays of strings when a key repeats). The module's pipe does no
// implicit conversion, so each non-string parameter converts itself with one of these `@Transform`s,
// and only when the text is unambiguous: anything else is left as it came, so the validator refuses it
// with the caller's value.

/** `'12'` → `12`; anything else unchanged. */
export function toNumber({ value }: { value: unknown }): unknown {
  return typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
}

/** `'true'` / `'false'` → booleans; anything else unchanged. */
export function toBoolean({ value }: { value: unknown }): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return value;
}

/** The SDK sends arrays as repeated keys (`a=1&a=2`); a single key arrives as a string. */
export function toStringArray({ value }: { value: unknown }): unknown {
  return typeof value === 'string' ? [value] : value;
}

/**
 * Largest `page` a caller may ask for: the offset (`page × limit`, limit ≤ 100) must stay a safe integer
 * on its way to PostgreSQL. Deeper pages are merely empty; this only keeps absurd numbers from becoming
 * a 500.
 */
export const MAX_PAGE = Math.floor(Number.MAX_SAFE_INTEGER / 100);

/** An optional `page` query parameter: an integer from 0 (documented by `api`). */
export function PageQueryParam(api: ApiPropertyOptions): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional(api), IsOptional(), Transform(toNumber), IsInt(), Min(0), Max(MAX_PAGE));
}

/** An optional `limit` query parameter: an integer from 1 to `max` (documented by `api`). */
export function LimitQueryParam(max: number, api: ApiPropertyOptions): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional(api), IsOptional(), Transform(toNumber), IsInt(), Min(1), Max(max));
}

/** An optional list of strings in a query (`a=1&a=2`, or a single `a=1`), documented by `api`. */
export function StringListQueryParam(api: ApiPropertyOptions): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional(api), IsOptional(), Transform(toStringArray), IsArray(), IsString({ each: true }));
}

/** Counts of list responses stop here: a larger result reports this number (the scan stays bounded). */
export const LIST_COUNT_CAP = 50_000;

/** An offset page, resolved: `page` from 0, `limit` rows per page. */
export interface ResolvedPage {
  page: number;
  limit: number;
  /** `page × limit`. */
  offset: number;
}

/**
 * Applies the defaults of an offset-paginated list and records the problems of `page` and `limit` in
 * `errors` (the services check what the HTTP DTOs check, for hosts that call them directly).
 */
export function resolvePage(
  query: { page?: unknown; limit?: unknown },
  bounds: { defaultLimit: number; maxLimit: number },
  errors: Record<string, FieldErrors>,
): ResolvedPage {
  const page = query.page ?? 0;
  const limit = query.limit ?? bounds.defaultLimit;
  const pageOk = Number.isInteger(page) && (page as number) >= 0 && (page as number) <= MAX_PAGE;
  const limitOk = Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= bounds.maxLimit;
  if (!pageOk) errors.page = { messages: [`page must be an integer between 0 and ${MAX_PAGE}`], value: query.page };
  if (!limitOk) errors.limit = { messages: [`limit must be an integer between 1 and ${bounds.maxLimit}`], value: query.limit };
  const resolvedPage = pageOk ? (page as number) : 0;
  const resolvedLimit = limitOk ? (limit as number) : bounds.defaultLimit;
  return { page: resolvedPage, limit: resolvedLimit, offset: resolvedPage * resolvedLimit };
}

/**
 * A single string or an array of strings as an array (undefined stays undefined); records a problem in
 * `errors` for anything else.
 */
export function resolveStringList(
  field: string,
  value: unknown,
  errors: Record<string, FieldErrors>,
): string[] | undefined {
  if (value === undefined) return undefined;
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.some((item) => typeof item !== 'string')) {
    errors[field] = { messages: [`${field} must be a string or an array of strings`], value };
    return undefined;
  }
  return list as string[];
}

/** Throws the 422 of the collected problems, if any. */
export function throwIfInvalid(errors: Record<string, FieldErrors>): void {
  if (Object.keys(errors).length) throw new RequestValidationException(errors);
}

/**
 * A tiny builder for statements with `$n` placeholders: every value becomes a parameter, only the
 * caller's fixed SQL fragments are text.
 */
export class SqlParams {
  readonly values: unknown[] = [];

  constructor(...initial: unknown[]) {
    this.values.push(...initial);
  }

  /** Adds a value and returns its placeholder, with an optional cast (`::text[]`). */
  add(value: unknown, cast = ''): string {
    this.values.push(value);
    return `$${this.values.length}${cast}`;
  }
}
