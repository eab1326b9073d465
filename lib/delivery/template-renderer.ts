import { Injectable } from '@nestjs/common';
import { Liquid, type Template } from 'liquidjs';

/**
 * Everything a step's Liquid templates can read: `{{ subscriber.firstName }}`, `{{ payload.order.id }}`,
 * `{{ tenant.data.x }}`, `{{ actor.firstName }}`, `{% for e in step.events %}`, `{{ step.total_count }}`.
 */
export interface TemplateContext {
  subscriber: Record<string, unknown>;
  payload: Record<string, unknown>;
  tenant?: Record<string, unknown> | null;
  actor?: Record<string, unknown> | null;
  context?: Record<string, unknown> | null;
  /** Digest results: the events the run's digest collected (`digest: false` and none without a digest). */
  step?: { digest: boolean; events: Record<string, unknown>[]; total_count: number };
}

/**
 * A template that could not be parsed (bad syntax, unknown filter or tag) or rendered (a limit was hit,
 * an include was attempted). The message is one line: what failed and Liquid's reason with its line and
 * column, e.g. `Template could not be parsed: undefined filter: nofilter, line:1, col:1`.
 */
export class TemplateRenderError extends Error {
  override readonly name = 'TemplateRenderError';

  /**
   * @param message The one-line description.
   * @param phase `parse` for syntax errors, `render` for errors while rendering.
   * @param cause Liquid's original error.
   */
  constructor(
    message: string,
    readonly phase: 'parse' | 'render',
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

/**
 * Denial-of-service limits of one template (liquidjs options). A notification template renders in well
 * under a millisecond, so these only stop hostile or runaway templates from stalling the worker.
 */
export const TEMPLATE_LIMITS = {
  /** Longest template source, in characters. */
  parseLimit: 1_000_000,
  /** Longest render, in milliseconds. */
  renderLimit: 500,
  /** Most memory one render may allocate, in liquidjs units (characters of strings, array elements). */
  memoryLimit: 10_000_000,
} as const;

/** Parsed templates kept, and their total source size: enough for every template of a large workspace. */
const CACHE_MAX_ENTRIES = 1000;
const CACHE_MAX_CHARS = 5_000_000;

/**
 * Renders the Liquid templates of steps (subject, content, title, CTA URL, http_request headers and
 * body). Parsed templates are cached by source text, so each distinct template is parsed once.
 *
 * Liquid settings, and why:
 * - unknown filters are errors (`strictFilters`): a typo should fail the message, not silently drop text;
 * - missing variables render as empty (`strictVariables: false`): payloads legitimately omit fields;
 * - no output escaping: these are notifications, not HTML pages; email templates render as written;
 * - only own properties are readable (`ownPropertyOnly`): no `constructor` or prototype members;
 * - `include`, `render` and `layout` find nothing: templates come from API users and must never read
 *   the worker's file system (liquidjs resolves them against the working directory by default);
 * - the `date` filter works in UTC, so output does not depend on the worker's time zone;
 * - {@link TEMPLATE_LIMITS} bound parse size, render time and memory.
 */
@Injectable()
export class TemplateRenderer {
  private readonly liquid = new Liquid({
    strictFilters: true,
    strictVariables: false,
    ownPropertyOnly: true,
    templates: {},
    timezoneOffset: 0,
    ...TEMPLATE_LIMITS,
  });

  /** Parsed templates by source, oldest first (Map order); a hit moves the entry to the end. */
  private readonly cache = new Map<string, Template[]>();
  private cachedChars = 0;

  /**
   * Renders one template. Text without `{` cannot hold Liquid markup and is returned as it is.
   * @param template The Liquid source; undefined (or a null read from storage) gives undefined, so an
   *   absent subject stays absent.
   * @param context What the template can read.
   * @returns The rendered text.
   * @throws TemplateRenderError when the template is malformed or rendering fails.
   */
  render(template: string | undefined, context: TemplateContext): string | undefined {
    if (template === undefined || template === null) return undefined;
    // Liquid markup always starts with "{{" or "{%": plain text needs neither parsing nor a cache slot.
    if (!template.includes('{')) return template;
    const parsed = this.parse(template);
    try {
      const output: unknown = this.liquid.renderSync(parsed, { ...context });
      return typeof output === 'string' ? output : String(output);
    } catch (error) {
      throw new TemplateRenderError(`Template could not be rendered: ${errorMessage(error)}`, 'render', error);
    }
  }

  /**
   * Renders every string inside a JSON-like value (objects, arrays, strings; other values are kept),
   * e.g. the headers and body of an `http_request` step. Keys are not rendered; the input is not changed.
   * @throws TemplateRenderError as {@link render}.
   */
  renderObject<T>(value: T, context: TemplateContext): T {
    return this.renderValue(value, context) as T;
  }

  private renderValue(value: unknown, context: TemplateContext): unknown {
    if (typeof value === 'string') return this.render(value, context);
    if (Array.isArray(value)) return value.map((item) => this.renderValue(item, context));
    if (isPlainObject(value)) {
      // fromEntries defines own properties, so a "__proto__" key stays a key instead of a prototype.
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.renderValue(item, context)]));
    }
    return value;
  }

  private parse(source: string): Template[] {
    const cached = this.cache.get(source);
    if (cached) {
      this.cache.delete(source);
      this.cache.set(source, cached);
      return cached;
    }
    let parsed: Template[];
    try {
      parsed = this.liquid.parse(source);
    } catch (error) {
      throw new TemplateRenderError(`Template could not be parsed: ${errorMessage(error)}`, 'parse', error);
    }
    if (source.length <= CACHE_MAX_CHARS) {
      this.cache.set(source, parsed);
      this.cachedChars += source.length;
      this.evict();
    }
    return parsed;
  }

  private evict(): void {
    for (const key of this.cache.keys()) {
      if (this.cache.size <= CACHE_MAX_ENTRIES && this.cachedChars <= CACHE_MAX_CHARS) return;
      this.cache.delete(key);
      this.cachedChars -= key.length;
    }
  }

  /** Number of parsed templates currently cached (for tests and diagnostics). */
  get cacheSize(): number {
    return this.cache.size;
  }
}

function errorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // Liquid messages are one line already; keep any other error to its first line.
  return message.split('\n')[0];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
