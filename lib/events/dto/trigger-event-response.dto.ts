import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { TRIGGER_EVENT_STATUSES, type TriggerEventStatus } from '../trigger-event';

/**
 * The result of one event of a bulk trigger, in the order of the request.
 * @publicApi
 */
export class TriggerEventResponseDto {
  @ApiProperty({ type: Boolean, description: 'Indicates whether the trigger was acknowledged or not' })
  readonly acknowledged!: boolean;

  @ApiProperty({ type: String, enum: TRIGGER_EVENT_STATUSES, description: 'Status of the trigger' })
  readonly status!: TriggerEventStatus;

  @ApiPropertyOptional({ type: [String], description: 'In case of an error, this field will contain the error message(s)' })
  readonly error?: string[];

  @ApiPropertyOptional({ type: String, description: 'The returned transaction ID of the trigger' })
  readonly transactionId?: string;

  @ApiPropertyOptional({ type: String, description: 'Link to the activity feed for this trigger event. Never set by this service.' })
  readonly activityFeedLink?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Internal job data. Never set by this service.' })
  readonly jobData?: Record<string, unknown>;
}
