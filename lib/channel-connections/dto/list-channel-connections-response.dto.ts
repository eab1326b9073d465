import { ApiProperty } from '@nestjs/swagger';
import { GetChannelConnectionResponseDto } from './channel-connection-response.dto';

/**
 * A page of channel connections. Unlike every other success body this object has its own `data` key
 * (DESIGN §6): it is the contract's shape, not an envelope.
 * @publicApi
 */
export class ListChannelConnectionsResponseDto {
  @ApiProperty({ type: [GetChannelConnectionResponseDto], description: 'List of returned Channel Connections' })
  readonly data!: GetChannelConnectionResponseDto[];

  @ApiProperty({ type: String, nullable: true, description: 'The cursor for the next page of results, or null if there are no more pages.' })
  readonly next!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The cursor for the previous page of results, or null if this is the first page.',
  })
  readonly previous!: string | null;

  @ApiProperty({ type: Number, description: 'The total count of items (up to 50,000)' })
  readonly totalCount!: number;

  @ApiProperty({ type: Boolean, description: 'Whether there are more than 50,000 results available' })
  readonly totalCountCapped!: boolean;
}
