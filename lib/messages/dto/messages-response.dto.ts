import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { LIST_COUNT_CAP } from '../../common/query-params';
import { MessageResponseDto } from './message-response.dto';

/**
 * A page of messages (`GET /v1/messages`), newest first.
 * @publicApi
 */
export class MessagesResponseDto {
  @ApiPropertyOptional({
    type: Number,
    description: `Total number of messages available, counted up to ${LIST_COUNT_CAP.toLocaleString('en-US')}: a larger set reports ${LIST_COUNT_CAP.toLocaleString('en-US')}.`,
  })
  readonly totalCount?: number;

  @ApiProperty({ type: Boolean, description: 'Indicates if there are more messages available' })
  readonly hasMore!: boolean;

  @ApiProperty({ type: [MessageResponseDto], description: 'List of messages' })
  readonly data!: MessageResponseDto[];

  @ApiProperty({ type: Number, description: 'Number of messages per page (the `limit` applied)' })
  readonly pageSize!: number;

  @ApiProperty({ type: Number, description: 'Current page number (from 0)' })
  readonly page!: number;
}
