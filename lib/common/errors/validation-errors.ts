import { UnprocessableEntityException } from '@nestjs/common';
import type { ValidationError } from 'class-validator';
import { MESSAGES } from './messages';

/** One field's failures, as the contract's `ConstraintValidation`. */
export interface FieldErrors {
  messages: string[];
  value?: unknown;
}

/**
 * A 422 with per-field errors (the contract's ValidationErrorDto). Thrown by the validation pipe and
 * by services for input that only they can judge (for example a malformed id inside a list).
 * @publicApi
 */
export class RequestValidationException extends UnprocessableEntityException {
  constructor(readonly errors: Record<string, FieldErrors>) {
    super({
      message: Object.values(errors).flatMap((e) => e.messages),
      error: 'Unprocessable Entity',
      errors,
    });
  }

  /** A 422 for a single field. */
  static forField(field: string, message: string, value?: unknown): RequestValidationException {
    return new RequestValidationException({ [field]: { messages: [message], value } });
  }
}

/** Flattens class-validator's nested errors into `{ 'a.b[0].c': { messages, value } }`. */
export function toFieldErrors(errors: ValidationError[], prefix = ''): Record<string, FieldErrors> {
  const out: Record<string, FieldErrors> = {};
  for (const error of errors) {
    const field = prefix ? (/^\d+$/.test(error.property) ? `${prefix}[${error.property}]` : `${prefix}.${error.property}`) : error.property;
    if (error.constraints) {
      out[field] = { messages: Object.values(error.constraints), value: error.value };
    }
    if (error.children?.length) Object.assign(out, toFieldErrors(error.children, field));
  }
  return out;
}

/** The pipe's exception factory: every validation failure is a 422, never a 400 or a 500. */
export function validationExceptionFactory(errors: ValidationError[]): RequestValidationException {
  const fields = toFieldErrors(errors);
  return new RequestValidationException(Object.keys(fields).length ? fields : { request: { messages: [MESSAGES.validationFailed] } });
}
