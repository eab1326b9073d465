import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiHeader, ApiResponse } from '@nestjs/swagger';
import { ConstraintValidationDto, ErrorDto, ValidationErrorDto } from './dto/error.dto';

/** Documents the error responses every route of the module can give. */
export function ApiErrorResponses(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(ErrorDto, ValidationErrorDto, ConstraintValidationDto),
    ApiResponse({ status: 400, description: 'Bad request: the body is not JSON, or the idempotency key is too long.', type: ErrorDto }),
    ApiResponse({ status: 401, description: 'Missing, malformed or unknown credentials.', type: ErrorDto }),
    ApiResponse({ status: 404, description: 'The resource does not exist in the caller\'s environment.', type: ErrorDto }),
    ApiResponse({ status: 409, description: 'A request with the same idempotency key is in progress.', type: ErrorDto }),
    ApiResponse({ status: 413, description: 'The body is too large.', type: ErrorDto }),
    ApiResponse({ status: 422, description: 'The input failed validation.', type: ValidationErrorDto }),
    ApiResponse({ status: 500, description: 'A server fault; the body carries an errorId.', type: ErrorDto }),
    ApiHeader({ name: 'idempotency-key', required: false, description: 'A header for idempotency purposes', schema: { type: 'string' } }),
  );
}
