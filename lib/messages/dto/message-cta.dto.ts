import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';

/** Kinds of call to action (`ChannelCTATypeEnum`). */
export const CTA_TYPES = ['redirect'] as const;
/** Kinds of CTA button (`ButtonTypeEnum`). */
export const BUTTON_TYPES = ['primary', 'secondary'] as const;
/** States of a CTA action (`MessageActionStatusEnum`). */
export const MESSAGE_ACTION_STATUSES = ['pending', 'done'] as const;

/** Where a redirect CTA leads (`MessageCTAData`). @publicApi */
@ApiSchema({ name: 'MessageCTAData' })
export class MessageCtaDataDto {
  @ApiPropertyOptional({ type: String, description: 'URL the subscriber is sent to.' })
  readonly url?: string;
}

/** One button of a CTA action (`MessageButton`). @publicApi */
@ApiSchema({ name: 'MessageButton' })
export class MessageButtonDto {
  @ApiProperty({ enum: BUTTON_TYPES, enumName: 'ButtonTypeEnum' })
  readonly type!: (typeof BUTTON_TYPES)[number];

  @ApiProperty({ type: String, description: 'Label of the button.' })
  readonly content!: string;

  @ApiPropertyOptional({ type: String, description: 'Label shown once the button was clicked.' })
  readonly resultContent?: string;
}

/** What the subscriber did with a CTA action (`MessageActionResult`). @publicApi */
@ApiSchema({ name: 'MessageActionResult' })
export class MessageActionResultDto {
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Data sent with the action.' })
  readonly payload?: Record<string, unknown>;

  @ApiPropertyOptional({ enum: BUTTON_TYPES, enumName: 'ButtonTypeEnum', description: 'The button clicked.' })
  readonly type?: (typeof BUTTON_TYPES)[number];
}

/** Buttons of a CTA and their outcome (`MessageAction`). @publicApi */
@ApiSchema({ name: 'MessageAction' })
export class MessageActionDto {
  @ApiPropertyOptional({ enum: MESSAGE_ACTION_STATUSES, enumName: 'MessageActionStatusEnum' })
  readonly status?: (typeof MESSAGE_ACTION_STATUSES)[number];

  @ApiPropertyOptional({ type: [MessageButtonDto] })
  readonly buttons?: MessageButtonDto[];

  @ApiPropertyOptional({ type: MessageActionResultDto })
  readonly result?: MessageActionResultDto;
}

/**
 * The call to action of a message (`MessageCTA`). Every field is optional, but the object itself is
 * always sent (`{}` at least): the SDK requires it.
 * @publicApi
 */
@ApiSchema({ name: 'MessageCTA' })
export class MessageCtaDto {
  @ApiPropertyOptional({ enum: CTA_TYPES, enumName: 'ChannelCTATypeEnum' })
  readonly type?: (typeof CTA_TYPES)[number];

  @ApiPropertyOptional({ type: MessageCtaDataDto, description: 'Data associated with the call to action.' })
  readonly data?: MessageCtaDataDto;

  @ApiPropertyOptional({ type: MessageActionDto, description: 'Action associated with the call to action.' })
  readonly action?: MessageActionDto;
}
