import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Kinds of recipient objects (`TriggerRecipientsTypeEnum`). */
export const TRIGGER_RECIPIENT_TYPES = ['Subscriber', 'Topic'] as const;
export type TriggerRecipientType = (typeof TRIGGER_RECIPIENT_TYPES)[number];

/**
 * A topic as a recipient. Part of the contract, but this module has no topics: a topic recipient is
 * treated as an invalid recipient (an event whose only recipients are topics answers
 * `invalid_recipients`).
 * @publicApi
 */
export class TopicPayloadDto {
  @ApiProperty({ type: String, minLength: 1 })
  readonly topicKey!: string;

  @ApiProperty({ enum: TRIGGER_RECIPIENT_TYPES, enumName: 'TriggerRecipientsTypeEnum' })
  readonly type!: TriggerRecipientType;

  @ApiPropertyOptional({ type: [String], description: 'Optional array of subscriber IDs to exclude from the topic trigger' })
  readonly exclude?: string[];
}
