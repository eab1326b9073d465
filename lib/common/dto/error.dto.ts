import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';

const MESSAGE_SCHEMA = {
  description: 'What went wrong: a sentence, or a list of sentences for validation failures.',
  oneOf: [
    { type: 'string', nullable: true },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'object', nullable: true },
    {
      type: 'array',
      items: {
        anyOf: [{ type: 'string', nullable: true }, { type: 'number' }, { type: 'boolean' }, { type: 'object', additionalProperties: true }],
      },
    },
  ],
};

/**
 * Body of every error response.
 * @publicApi
 */
export class ErrorDto {
  @ApiProperty({ type: Number, description: 'HTTP status code of the error response.', example: 404 })
  readonly statusCode!: number;

  @ApiProperty({ type: String, description: 'When the error occurred (ISO-8601).', example: '2026-11-21T13:00:00.000Z' })
  readonly timestamp!: string;

  @ApiProperty({ type: String, description: 'The request path, query string included.', example: '/v1/notifications/abc' })
  readonly path!: string;

  @ApiPropertyOptional(MESSAGE_SCHEMA)
  readonly message?: unknown;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Extra context of the error.' })
  readonly ctx?: Record<string, unknown>;

  @ApiPropertyOptional({ type: String, description: 'Id of a server fault (500 only), as logged.' })
  readonly errorId?: string;
}

/**
 * One field's validation failures.
 * @publicApi
 */
export class ConstraintValidationDto {
  @ApiProperty({ type: [String], description: 'Why the value was refused.' })
  readonly messages!: string[];

  @ApiPropertyOptional({
    description: 'The value that was refused.',
    oneOf: [
      { type: 'string', nullable: true },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'object' },
      {
        type: 'array',
        items: { anyOf: [{ type: 'string', nullable: true }, { type: 'number' }, { type: 'boolean' }, { type: 'object', additionalProperties: true }] },
      },
    ],
  })
  readonly value?: unknown;
}

/**
 * Body of a 422: the error plus the failures of each field.
 * @publicApi
 */
export class ValidationErrorDto extends ErrorDto {
  @ApiProperty({
    type: 'object',
    description: 'Validation failures keyed by field name.',
    additionalProperties: { $ref: getSchemaPath(ConstraintValidationDto) },
  })
  readonly errors!: Record<string, ConstraintValidationDto>;
}
