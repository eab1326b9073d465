import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray } from 'class-validator';
import { MAX_BULK_EVENTS, MAX_RECIPIENTS_PER_EVENT, type TriggerEventInput } from '../trigger-event';
import { SubscriberPayloadDto } from './subscriber-payload.dto';
import { TenantPayloadDto } from './tenant-payload.dto';
import { TopicPayloadDto } from './topic-payload.dto';
import { TriggerOverrides } from './trigger-overrides.dto';

const SUBSCRIBER_ID = {
  type: 'string',
  minLength: 1,
  description: 'Unique identifier of a subscriber in your systems',
  example: 'SUBSCRIBER_ID',
} as const;

/**
 * One event of a bulk trigger. Documentation only: the fields of each event are checked by
 * `EventsService`, and a bad event gets its own `status: "error"` result instead of failing the
 * request (as in the reference service, whose pipe does not validate events either).
 * @publicApi
 */
@ApiExtraModels(SubscriberPayloadDto, TopicPayloadDto, TenantPayloadDto)
export class TriggerEventRequestDto {
  @ApiProperty({
    type: String,
    description: 'The trigger identifier of the workflow you wish to send. This identifier can be found on the workflow page.',
    example: 'workflow_identifier',
    // The SDK's name for the field; the property type has no slot for vendor extensions.
    ...({ 'x-speakeasy-name-override': 'workflowId' } as object),
  })
  readonly name!: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'The payload object is used to pass additional custom information that could be used to render the workflow, ' +
      'or perform routing rules based on it. This data will also be available when fetching the notifications feed ' +
      'from the API to display certain parts of the UI.',
    example: { comment_id: 'string', post: { text: 'string' } },
  })
  readonly payload?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: String,
    description: 'Optional Bridge Endpoint URL. Not supported by this service: an event that sets it answers `status: "error"`.',
    example: 'https://your-tunnel.novu.co/api/novu',
  })
  readonly bridgeUrl?: string;

  @ApiPropertyOptional({
    type: () => TriggerOverrides,
    description: 'This could be used to override provider specific configurations',
    example: { fcm: { data: { key: 'value' } } },
  })
  readonly overrides?: TriggerOverrides;

  @ApiProperty({
    description:
      `The recipients list of people who will receive the notification. Maximum number of recipients can be ${MAX_RECIPIENTS_PER_EVENT}. ` +
      'Recipients are deduplicated by subscriberId (the last one wins) and created or updated as subscribers. ' +
      'Topic recipients are not supported and count as invalid recipients.',
    oneOf: [
      {
        type: 'array',
        items: {
          oneOf: [{ $ref: getSchemaPath(SubscriberPayloadDto) }, { $ref: getSchemaPath(TopicPayloadDto) }, SUBSCRIBER_ID],
        },
      },
      SUBSCRIBER_ID,
      { $ref: getSchemaPath(SubscriberPayloadDto) },
      { $ref: getSchemaPath(TopicPayloadDto) },
    ],
  })
  readonly to!: TriggerEventInput['to'];

  @ApiPropertyOptional({
    type: String,
    description:
      'A unique identifier for deduplication. A transactionId already used in the environment (or earlier in the same ' +
      'request) answers `status: "error"`. Generated (`txn_<id>`) when omitted.',
  })
  readonly transactionId?: string;

  @ApiPropertyOptional({
    description:
      "It is used to display the Avatar of the provided actor's subscriber id or actor object. " +
      'If a new actor object is provided, we will create a new subscriber in our system',
    oneOf: [{ type: 'string', description: 'Unique identifier of a subscriber in your systems' }, { $ref: getSchemaPath(SubscriberPayloadDto) }],
  })
  readonly actor?: TriggerEventInput['actor'];

  @ApiPropertyOptional({
    description:
      'It is used to specify a tenant context during trigger event. Existing tenants will be updated with the provided details.',
    oneOf: [{ type: 'string', description: 'Unique identifier of a tenant in your system' }, { $ref: getSchemaPath(TenantPayloadDto) }],
  })
  readonly tenant?: TriggerEventInput['tenant'];

  @ApiPropertyOptional({
    type: 'object',
    description: 'Context of the trigger, stored on the notification as given.',
    additionalProperties: {
      oneOf: [
        { type: 'string', description: 'Simple context id', example: 'org-acme' },
        {
          type: 'object',
          description: 'Rich context object with id and optional data',
          properties: {
            id: { type: 'string', example: 'org-acme' },
            data: {
              type: 'object',
              description: 'Optional additional context data',
              additionalProperties: true,
              example: { name: 'Acme Corp', region: 'us-east-1' },
            },
          },
          required: ['id'],
        },
      ],
    },
  })
  readonly context?: TriggerEventInput['context'];
}

/**
 * Body of `POST /v1/events/trigger/bulk`: 1 to 100 events. Only the list itself is validated here.
 * @publicApi
 */
export class BulkTriggerEventDto {
  @ApiProperty({ type: () => [TriggerEventRequestDto], minItems: 1, maxItems: MAX_BULK_EVENTS })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BULK_EVENTS)
  readonly events!: unknown[];
}
