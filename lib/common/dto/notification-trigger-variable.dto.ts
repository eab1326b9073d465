import { ApiProperty, ApiSchema } from '@nestjs/swagger';

/** A variable a workflow's trigger expects (`NotificationTriggerVariable`). @publicApi */
@ApiSchema({ name: 'NotificationTriggerVariable' })
export class NotificationTriggerVariableDto {
  @ApiProperty({ type: String, description: 'Name of the variable.' })
  readonly name!: string;
}
