import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsIn, ValidateBy } from 'class-validator';
import { MARK_AS_VALUES, type MarkAs } from '../../common/enums';
import { isObjectId } from '../../common/id';

/**
 * Most message ids one mark-as request may name. The update is one statement whatever the count, but
 * an unbounded `ANY($ids)` list is an easy way to make one request hold row locks for long.
 */
export const MAX_MARK_AS_IDS = 1000;

/**
 * Why `value` is not a usable `messageId` (a 24-hex id, a comma-separated list of them, or an array of
 * them), or undefined when it is. Shared by the DTO validation and {@link MessagesService.markAs}, so a
 * host calling the service directly gets the same 422s as an HTTP caller.
 */
export function messageIdProblem(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)) {
    return 'messageId is required';
  }
  if (typeof value !== 'string' && !(Array.isArray(value) && value.every((item) => typeof item === 'string'))) {
    return 'messageId must be a string or an array of strings';
  }
  const ids = splitMessageIds(value);
  if (ids.length > MAX_MARK_AS_IDS) return `messageId must contain at most ${MAX_MARK_AS_IDS} ids`;
  // A malformed id is the caller's mistake: refuse it instead of skipping it silently (Novu answers a 500).
  if (!ids.every(isObjectId)) return 'each value in messageId must be a mongodb id';
  return undefined;
}

/** The ids of a valid `messageId`, lower-cased and deduplicated, in the order given. */
export function toMessageIds(value: string | string[]): string[] {
  return [...new Set(splitMessageIds(value).map((id) => id.toLowerCase()))];
}

function splitMessageIds(value: string | string[]): string[] {
  return (Array.isArray(value) ? value : value.split(',')).map((id) => id.trim());
}

/** Body of `POST /v1/subscribers/{subscriberId}/messages/mark-as`. @publicApi */
export class MessageMarkAsRequestDto {
  @ApiProperty({
    description: `One message id, several ids separated by commas, or an array of ids (at most ${MAX_MARK_AS_IDS}). ` +
      'Ids of messages that do not exist or belong to another subscriber are skipped.',
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
  })
  @ValidateBy({
    name: 'isMessageIdList',
    validator: {
      validate: (value: unknown) => messageIdProblem(value) === undefined,
      defaultMessage: (args) => messageIdProblem(args?.value) ?? 'messageId is invalid',
    },
  })
  readonly messageId!: string | string[];

  @ApiProperty({ enum: MARK_AS_VALUES, type: String, description: '`read` also marks seen; `unread`/`unseen` keep the last dates.' })
  @IsDefined()
  @IsIn(MARK_AS_VALUES)
  readonly markAs!: MarkAs;
}
