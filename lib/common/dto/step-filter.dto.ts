import { ApiProperty } from '@nestjs/swagger';
import { FILTER_ON, FILTER_OPERATORS, FILTER_TYPES, FILTER_VALUES } from '../enums';

/** One condition (`FieldFilterPartDto`). @publicApi */
export class FieldFilterPartDto {
  @ApiProperty({ type: String, description: 'The field tested, e.g. `email` or `orderTotal`.' })
  readonly field!: string;

  @ApiProperty({ type: String, description: 'The value compared with.' })
  readonly value!: string;

  @ApiProperty({ enum: FILTER_OPERATORS, type: String })
  readonly operator!: (typeof FILTER_OPERATORS)[number];

  @ApiProperty({ enum: FILTER_ON, type: String, description: 'Whether `field` is read from the subscriber or the payload.' })
  readonly on!: (typeof FILTER_ON)[number];
}

/** A group of conditions (`StepFilterDto`). @publicApi */
export class StepFilterDto {
  @ApiProperty({ type: Boolean })
  readonly isNegated!: boolean;

  @ApiProperty({ enum: FILTER_TYPES, enumName: 'BuilderFieldTypeEnum' })
  readonly type!: (typeof FILTER_TYPES)[number];

  @ApiProperty({ enum: FILTER_VALUES, type: String })
  readonly value!: (typeof FILTER_VALUES)[number];

  @ApiProperty({ type: [FieldFilterPartDto] })
  readonly children!: FieldFilterPartDto[];
}
