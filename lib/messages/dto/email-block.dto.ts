import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';

/** Kinds of email block (`EmailBlockTypeEnum`). */
export const EMAIL_BLOCK_TYPES = ['button', 'text'] as const;
/** Alignments of an email block (`TextAlignEnum`). */
export const TEXT_ALIGNS = ['center', 'left', 'right'] as const;

/** How an email block is laid out (`EmailBlockStyles`). @publicApi */
@ApiSchema({ name: 'EmailBlockStyles' })
export class EmailBlockStylesDto {
  @ApiProperty({ enum: TEXT_ALIGNS, enumName: 'TextAlignEnum', description: 'Horizontal alignment of the block.' })
  readonly textAlign!: (typeof TEXT_ALIGNS)[number];
}

/**
 * One block of a message whose content is made of blocks rather than a single string (`EmailBlock`).
 * @publicApi
 */
@ApiSchema({ name: 'EmailBlock' })
export class EmailBlockDto {
  @ApiProperty({ enum: EMAIL_BLOCK_TYPES, enumName: 'EmailBlockTypeEnum', description: 'A text paragraph or a button.' })
  readonly type!: (typeof EMAIL_BLOCK_TYPES)[number];

  @ApiProperty({ type: String, description: 'Content of the email block.' })
  readonly content!: string;

  @ApiPropertyOptional({ type: String, description: 'URL associated with the email block, if any.' })
  readonly url?: string;

  @ApiPropertyOptional({ type: EmailBlockStylesDto, description: 'Styles applied to the email block.' })
  readonly styles?: EmailBlockStylesDto;
}
