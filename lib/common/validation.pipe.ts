import { ValidationPipe } from '@nestjs/common';
import { validationExceptionFactory } from './errors/validation-errors';

/**
 * The validation every controller of the module uses, whatever the host configured globally.
 * No implicit conversion: a JSON string `"true"` is not a boolean (as in the reference service);
 * query parameters are converted explicitly in their DTOs.
 */
export function createNotificationsValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidUnknownValues: false,
    stopAtFirstError: false,
    validationError: { target: false, value: true },
    exceptionFactory: validationExceptionFactory,
  });
}
