import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsDefined } from 'class-validator';

/** Body of `PATCH /v1/subscribers/{subscriberId}/online-status`. @publicApi */
export class UpdateSubscriberOnlineFlagRequestDto {
  @ApiProperty({ type: Boolean, description: 'Whether the subscriber is online.' })
  @IsDefined()
  @IsBoolean()
  readonly isOnline!: boolean;
}
