/**
 * Step conditions (`step.filters`): decide whether a step runs for a subscriber, from subscriber and
 * payload fields. Pure functions, no I/O; the worker calls {@link explainFilters} and, when it fails,
 * records the returned evaluation as the raw of `Step was filtered based on steps filters`.
 *
 * Semantics (Novu's conditions filter, with the operators made type-tolerant):
 * - no filters, or a filter group without children → passes;
 * - each {@link StepFilter} is a group whose children are combined by `value`: `AND` → all must pass,
 *   `OR` → at least one; any other combinator fails the group (as Novu does);
 * - `isNegated` negates the group's result (an empty group still passes, as in Novu);
 * - every group must pass;
 * - `type` (BOOLEAN, TEXT, …) is a hint for editors only and is ignored, as in Novu;
 * - a child reads `field` (a path, see {@link readPath}) from the subscriber when `on` is `subscriber`,
 *   from the payload when `on` is `payload`; any other `on` fails the condition.
 *
 * The operators, with `actual` the field's value and `value` the condition's string:
 * - `EQUAL` / `NOT_EQUAL`: numeric equality when both sides are numeric (a number, or a decimal string
 *   such as `"10"`, `"-1.5"`, `"1e3"`), otherwise string equality, case-sensitive. Booleans compare as
 *   `"true"` / `"false"`, a missing or null field as `""`, arrays and objects as their JSON.
 *   `NOT_EQUAL` is exactly `!EQUAL`.
 * - `LARGER` / `SMALLER` / `LARGER_EQUAL` / `SMALLER_EQUAL`: numeric comparison when both sides are
 *   numeric, else a date comparison when both sides are ISO 8601 dates (see {@link parseIsoDate});
 *   anything else (missing field, text, a number against a date) → false.
 * - `IN` / `NOT_IN`: `value` is a list (see {@link parseList}); passes when `actual` equals (as `EQUAL`)
 *   one of the listed items. An array `actual` passes when any of its elements is listed (so a single
 *   listed item behaves like Novu's `actual.includes(value)`). `NOT_IN` is exactly `!IN`.
 * - `ANY_IN` / `ALL_IN`: `actual` is an array (a scalar counts as `[actual]`, a missing field as `[]`);
 *   `ANY_IN` passes when at least one listed item is in it, `ALL_IN` when every listed item is
 *   (elements compared as `EQUAL`). An empty list: `ANY_IN` fails, `ALL_IN` passes (nothing is missing).
 * - `BETWEEN` / `NOT_BETWEEN`: `value` is a two-item list `min,max`; inclusive on both ends, compared
 *   as the ordering operators do (numbers, else ISO dates). A range with min > max contains nothing.
 *   Both fail when the value or the bounds cannot be compared or the list does not have two items,
 *   so `NOT_BETWEEN` is "comparable and outside the range", not `!BETWEEN`.
 * - `LIKE` / `NOT_LIKE`: case-insensitive. Without `%` in `value`: substring match. With `%`: an SQL
 *   LIKE pattern anchored at both ends where `%` is any run of characters (`_` is a literal, so field
 *   values like `user_name` need no escaping). Scalars are matched as text (a missing field as `""`),
 *   an array passes when any element matches; an empty value matches everything. `NOT_LIKE` is exactly
 *   `!LIKE`.
 * - any other operator fails the condition.
 *
 * @packageDocumentation
 */
import type { FILTER_OPERATORS } from '../common/enums';
import type { FieldFilterPart, StepFilter } from '../common/step-filter';

/** One operator of the contract. */
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** What the conditions read: the subscriber (`firstName`, `data.plan`, …) and the event payload. */
export interface FilterData {
  subscriber: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/** The outcome of one condition, shaped like Novu's `ICondition` so execution details read alike. */
export interface ConditionResult {
  /** `subscriber` or `payload` (what the condition read). */
  on: string;
  field: string;
  operator: string;
  /** The condition's value, as configured. */
  expected: string;
  /** The field's value as text (JSON for arrays and objects, `""` when missing), cut at 256 characters. */
  actual: string;
  passed: boolean;
  /** Why the condition could not be evaluated as written, when that is why it failed. */
  note?: string;
}

/** The outcome of one filter group. */
export interface FilterGroupResult {
  /** Position of the group in the step's `filters`. */
  index: number;
  /** The group's combinator (`AND` / `OR`). */
  value: string;
  isNegated: boolean;
  passed: boolean;
  conditions: ConditionResult[];
  /** Why the group failed regardless of its conditions (an unknown combinator). */
  note?: string;
}

/** The outcome of a step's filters: `passed` plus every group's details, for the execution detail raw. */
export interface FiltersEvaluation {
  passed: boolean;
  groups: FilterGroupResult[];
  /** Index of the first group that failed, when one did. */
  failedGroup?: number;
}

/** Longest `actual` text kept in a {@link ConditionResult}: payload fields may be large. */
const MAX_ACTUAL_CHARS = 256;

/**
 * Evaluates a step's filters and explains the outcome.
 * @param filters The step's `filters`; undefined or empty passes.
 * @param data The subscriber and payload the conditions read.
 * @returns Whether the step runs, with the per-group and per-condition details.
 */
export function explainFilters(filters: StepFilter[] | undefined, data: FilterData): FiltersEvaluation {
  const groups = (Array.isArray(filters) ? filters : []).map((filter, index) => evaluateGroup(filter, index, data));
  const failed = groups.find((group) => !group.passed);
  return failed ? { passed: false, groups, failedGroup: failed.index } : { passed: true, groups };
}

/**
 * Whether a step's filters let it run. Same rules as {@link explainFilters}, without the details.
 * @param filters The step's `filters`; undefined or empty passes.
 * @param data The subscriber and payload the conditions read.
 */
export function matchesFilters(filters: StepFilter[] | undefined, data: FilterData): boolean {
  return explainFilters(filters, data).passed;
}

/**
 * Evaluates one condition on its own.
 * @param condition The condition (`field`, `value`, `operator`, `on`).
 * @param data The subscriber and payload it reads.
 */
export function evaluateCondition(condition: FieldFilterPart, data: FilterData): ConditionResult {
  const { field, value, operator, on } = condition;
  const expected = typeof value === 'string' ? value : toText(value);
  const base = { on: String(on), field: String(field), operator: String(operator), expected };
  if (on !== 'subscriber' && on !== 'payload') {
    return { ...base, actual: '', passed: false, note: `unknown source "${String(on)}"` };
  }
  const actual = readPath(data[on], String(field));
  const outcome = applyOperator(operator, actual, expected);
  const result: ConditionResult = { ...base, actual: truncate(toText(actual)), passed: outcome.passed };
  if (outcome.note !== undefined) result.note = outcome.note;
  return result;
}

/**
 * Reads a path such as `data.plan`, `order.items[0].sku` or `order.items.0.sku` from an object.
 * Like lodash `get` (what Novu uses), a key that literally equals the whole path wins. Only own
 * properties are followed, so `constructor` or `__proto__` never reach the prototype; an array's
 * `length` is its own property and can be read (`tags.length`).
 * @returns The value, or undefined when any segment is missing.
 */
export function readPath(root: unknown, path: string): unknown {
  if (!isObject(root) || path === '') return undefined;
  if (Object.hasOwn(root, path)) return (root as Record<string, unknown>)[path];
  let current: unknown = root;
  for (const segment of path.replace(/\[(\d+)\]/g, '.$1').split('.')) {
    if (segment === '') continue;
    if (!isObject(current) || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/**
 * Parses an ISO 8601 date (`2024-05-01`, `2024-05-01T10:00`, `2024-05-01T10:00:00.123+02:00`, …) or
 * takes a valid Date. Stricter than `Date.parse` on purpose: `"1"` or `"May 1"` are not dates here, and
 * impossible dates (`2023-02-29`, `25:00`) are rejected instead of rolled over. A date-time without an
 * offset is read as UTC, so the result never depends on the worker's local time zone.
 * @returns The date, or undefined when the value is not one.
 */
export function parseIsoDate(value: unknown): Date | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value;
  if (typeof value !== 'string') return undefined;
  const match = ISO_DATE.exec(value.trim());
  if (!match) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', offset] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (offset !== undefined && offset.toUpperCase() !== 'Z') {
    const offsetHours = Number(offset.slice(1, 3));
    const offsetMins = Number(offset.slice(-2));
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (offset.startsWith('-') ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0-99 to 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, Number(fraction.padEnd(3, '0').slice(0, 3)));
  const time = date.getTime() - offsetMinutes * 60_000;
  return Number.isNaN(time) ? undefined : new Date(time);
}

/**
 * Splits a condition value into its items: a JSON array (`["a","b"]`, `[1,2]`) when the value is one,
 * else a comma-separated list (`a, b,c`) with items trimmed and empty items dropped.
 */
export function parseList(value: string): string[] {
  const trimmed = value.trim();
  if (trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return parsed.map((item) => toText(item));
    } catch {
      // Not JSON after all (e.g. "[draft], sent"): fall back to the comma-separated form.
    }
  }
  return trimmed
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/;

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;

interface Outcome {
  passed: boolean;
  note?: string;
}

function applyOperator(operator: string, actual: unknown, expected: string): Outcome {
  switch (operator as FilterOperator) {
    case 'EQUAL':
      return { passed: looseEquals(actual, expected) };
    case 'NOT_EQUAL':
      return { passed: !looseEquals(actual, expected) };
    case 'LARGER':
      return ordered(actual, expected, (diff) => diff > 0);
    case 'SMALLER':
      return ordered(actual, expected, (diff) => diff < 0);
    case 'LARGER_EQUAL':
      return ordered(actual, expected, (diff) => diff >= 0);
    case 'SMALLER_EQUAL':
      return ordered(actual, expected, (diff) => diff <= 0);
    case 'IN':
      return { passed: isIn(actual, parseList(expected)) };
    case 'NOT_IN':
      return { passed: !isIn(actual, parseList(expected)) };
    case 'ANY_IN': {
      const items = asArray(actual);
      return { passed: parseList(expected).some((wanted) => items.some((item) => looseEquals(item, wanted))) };
    }
    case 'ALL_IN': {
      const items = asArray(actual);
      return { passed: parseList(expected).every((wanted) => items.some((item) => looseEquals(item, wanted))) };
    }
    case 'BETWEEN':
      return between(actual, expected, true);
    case 'NOT_BETWEEN':
      return between(actual, expected, false);
    case 'LIKE':
      return { passed: isLike(actual, expected) };
    case 'NOT_LIKE':
      return { passed: !isLike(actual, expected) };
    default:
      return { passed: false, note: `unknown operator "${operator}"` };
  }
}

function evaluateGroup(filter: StepFilter, index: number, data: FilterData): FilterGroupResult {
  const value = String(filter?.value);
  const isNegated = filter?.isNegated === true;
  const children = Array.isArray(filter?.children) ? filter.children : [];
  if (children.length === 0) return { index, value, isNegated, passed: true, conditions: [] };
  const conditions = children.map((child) => evaluateCondition(child, data));
  if (value !== 'AND' && value !== 'OR') {
    return { index, value, isNegated, passed: false, conditions, note: `unknown combinator "${value}"` };
  }
  const result = value === 'OR' ? conditions.some((c) => c.passed) : conditions.every((c) => c.passed);
  return { index, value, isNegated, passed: isNegated ? !result : result, conditions };
}

/** `EQUAL`: numbers when both sides are numeric, else text. */
function looseEquals(actual: unknown, expected: string): boolean {
  const a = toNumber(actual);
  const e = toNumber(expected);
  if (a !== undefined && e !== undefined) return a === e;
  return toText(actual) === expected;
}

/** Signed difference actual − expected: numeric, else ISO dates, else undefined (not comparable). */
function compare(actual: unknown, expected: string): number | undefined {
  const a = toNumber(actual);
  const e = toNumber(expected);
  if (a !== undefined && e !== undefined) return a - e;
  const ad = parseIsoDate(actual);
  const ed = parseIsoDate(expected);
  if (ad !== undefined && ed !== undefined) return ad.getTime() - ed.getTime();
  return undefined;
}

function ordered(actual: unknown, expected: string, test: (diff: number) => boolean): Outcome {
  const diff = compare(actual, expected);
  return diff === undefined ? { passed: false, note: 'values are not comparable numbers or dates' } : { passed: test(diff) };
}

function between(actual: unknown, expected: string, inside: boolean): Outcome {
  const bounds = parseList(expected);
  if (bounds.length !== 2) return { passed: false, note: 'value must be a "min,max" pair' };
  const fromMin = compare(actual, bounds[0]);
  const toMax = compare(actual, bounds[1]);
  if (fromMin === undefined || toMax === undefined) {
    return { passed: false, note: 'values are not comparable numbers or dates' };
  }
  const isBetween = fromMin >= 0 && toMax <= 0;
  return { passed: inside ? isBetween : !isBetween };
}

function isIn(actual: unknown, list: string[]): boolean {
  const items = Array.isArray(actual) ? actual : [actual];
  return items.some((item) => list.some((wanted) => looseEquals(item, wanted)));
}

function isLike(actual: unknown, pattern: string): boolean {
  const items = Array.isArray(actual) ? actual : [actual];
  const needle = pattern.toLowerCase();
  return items.some((item) => likeMatch(toText(item).toLowerCase(), needle));
}

/**
 * `%`-wildcard matching without a RegExp: patterns come from configuration and values from payloads,
 * and a pattern like `%a%a%a%b` turned into a backtracking regex can take polynomial time. Greedy
 * leftmost matching of the literal segments is exact for `%`-only patterns and linear per segment.
 */
function likeMatch(text: string, pattern: string): boolean {
  if (!pattern.includes('%')) return text.includes(pattern);
  const segments = pattern.split('%');
  const first = segments[0];
  const last = segments[segments.length - 1];
  if (!text.startsWith(first)) return false;
  let position = first.length;
  for (const segment of segments.slice(1, -1)) {
    if (segment === '') continue;
    const found = text.indexOf(segment, position);
    if (found === -1) return false;
    position = found + segment.length;
  }
  return text.length - last.length >= position && text.endsWith(last);
}

function asArray(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return value === undefined || value === null ? [] : [value];
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && DECIMAL.test(value.trim())) {
    const parsed = Number(value.trim());
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
}

function toText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString();
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

function truncate(text: string): string {
  return text.length > MAX_ACTUAL_CHARS ? `${text.slice(0, MAX_ACTUAL_CHARS)}…` : text;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function daysInMonth(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}
