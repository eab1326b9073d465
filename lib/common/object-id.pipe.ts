import { Injectable, type PipeTransform, type ArgumentMetadata } from '@nestjs/common';
import { RequestValidationException } from './errors/validation-errors';
import { isObjectId } from './id';

/** Validates a path parameter that must be a 24-hex id; a malformed id is a 422, not a 404 or a 500. */
@Injectable()
export class ParseObjectIdPipe implements PipeTransform<unknown, string> {
  transform(value: unknown, metadata: ArgumentMetadata): string {
    if (!isObjectId(value)) {
      const field = metadata.data ?? 'id';
      throw RequestValidationException.forField(field, `${field} must be a mongodb id`, value);
    }
    return value.toLowerCase();
  }
}
