import { type ArgumentMetadata, Injectable, ValidationPipe } from '@nestjs/common';
import { RequestValidationException } from './errors/validation-errors';
import { validationExceptionFactory } from './errors/validation-errors';

/**
 * The validation every controller of the module uses, whatever the host configured globally.
 * No implicit conversion: a JSON string `"true"` is not a boolean (as in the reference service);
 * query parameters are converted explicitly in their DTOs.
 *
 * It also refuses strings holding a NUL character anywhere in a body, query or path parameter:
 * PostgreSQL cannot store U+0000 in text, so without this check such input would fail deep in a
 * query as a 500 instead of a 422. And it refuses input nested deeper than {@link MAX_INPUT_DEPTH}:
 * class-transformer recurses once per level and overflows the stack at a few thousand levels.
 */
@Injectable()
export class NotificationsValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidUnknownValues: false,
      stopAtFirstError: false,
      validationError: { target: false, value: true },
      exceptionFactory: validationExceptionFactory,
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // Custom parameters (the principal) are ours, not the caller's: nothing to check, on every request.
    if (metadata.type === 'custom') return value;
    const field = findNulCharacter(value, metadata.data ?? '');
    if (field !== undefined) {
      throw RequestValidationException.forField(field || metadata.type, 'must not contain NUL characters', undefined);
    }
    if (isNestedTooDeeply(value)) {
      throw RequestValidationException.forField(metadata.data || metadata.type, `must not be nested more than ${MAX_INPUT_DEPTH} levels deep`, undefined);
    }
    return super.transform(value, metadata);
  }
}

/**
 * Deepest nesting of objects and arrays accepted in a body or query. Far above any real request (and
 * above the bulk trigger's own per-event limit, which answers per event), far below the depth at which
 * class-transformer's recursion overflows the stack (a 500).
 */
export const MAX_INPUT_DEPTH = 256;

/** Whether objects or arrays nest deeper than {@link MAX_INPUT_DEPTH}. Iterative: it must not overflow itself. */
function isNestedTooDeeply(root: unknown): boolean {
  if (root === null || typeof root !== 'object') return false;
  const stack: Array<{ value: object; depth: number }> = [{ value: root, depth: 1 }];
  while (stack.length) {
    const { value, depth } = stack.pop()!;
    for (const child of Object.values(value)) {
      if (child === null || typeof child !== 'object') continue;
      if (depth + 1 > MAX_INPUT_DEPTH) return true;
      stack.push({ value: child as object, depth: depth + 1 });
    }
  }
  return false;
}

/** The path of the first string (or key) holding U+0000, or undefined. Bounded depth: bodies are small. */
function findNulCharacter(value: unknown, path: string, depth = 0): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (depth > 32 || value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const childPath = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    if (key.includes('\u0000')) return childPath;
    const found = findNulCharacter(child, childPath, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The pipe instance the module's controllers use. */
export function createNotificationsValidationPipe(): NotificationsValidationPipe {
  return new NotificationsValidationPipe();
}
