import { Injectable, NotFoundException } from '@nestjs/common';
import { NotificationsDatabase } from '../common/database';
import { MARK_AS_VALUES, type MarkAs } from '../common/enums';
import { MESSAGES } from '../common/errors/messages';
import { type FieldErrors, RequestValidationException } from '../common/errors/validation-errors';
import { messageIdProblem, toMessageIds } from './dto/message-mark-as-request.dto';
import { MessageEntity } from './message.entity';

/**
 * The SET clause of each mark-as action. `unread`/`unseen` clear the flag but keep the date of the
 * last read/seen (DESIGN §7, which keeps the history the reference service overwrites with "now").
 * Fixed strings chosen by a validated key: no caller text ever reaches the SQL.
 */
const MARK_AS_SET: Record<MarkAs, string> = {
  read: 'read = true, last_read_date = now(), seen = true, last_seen_date = now()',
  seen: 'seen = true, last_seen_date = now()',
  unread: 'read = false',
  unseen: 'seen = false',
};

/**
 * In-app messages of an environment's subscribers.
 * @publicApi
 */
@Injectable()
export class MessagesService {
  constructor(private readonly db: NotificationsDatabase) {}

  /**
   * Marks messages of one subscriber as read, seen, unread or unseen, and returns the updated messages,
   * oldest first. Ids of messages that do not exist, are deleted, or belong to another subscriber or
   * environment are skipped silently.
   *
   * The whole request is one statement: the subscriber lookup and the set-based
   * `UPDATE … WHERE id = ANY($ids)` share a CTE, and the outer LEFT JOIN still yields one (empty) row
   * when the subscriber exists but no message matched, which tells "unknown subscriber" from "nothing
   * to update" without a second round trip.
   *
   * @param messageIds a 24-hex id, a comma-separated list of them, or an array of them (at most 1000).
   * @throws RequestValidationException for a missing or malformed `messageIds` or an unknown `markAs`.
   * @throws NotFoundException `Subscriber not found` when the subscriber is not in the environment.
   */
  async markAs(environmentId: string, subscriberId: string, messageIds: string | string[], markAs: MarkAs): Promise<MessageEntity[]> {
    const errors: Record<string, FieldErrors> = {};
    const idProblem = messageIdProblem(messageIds);
    if (idProblem) errors.messageId = { messages: [idProblem], value: messageIds };
    if (!(MARK_AS_VALUES as readonly unknown[]).includes(markAs)) {
      errors.markAs = { messages: [`markAs must be one of the following values: ${MARK_AS_VALUES.join(', ')}`], value: markAs };
    }
    if (Object.keys(errors).length) throw new RequestValidationException(errors);

    const { rows } = await this.db.query<{ subscriber_row_id: string; id: string | null }>(
      `WITH subscriber AS (
         SELECT id FROM ntf_subscriber
          WHERE environment_id = $1 AND subscriber_id = $2 AND NOT deleted
       ), updated AS (
         UPDATE ntf_message AS m
            SET ${MARK_AS_SET[markAs]}, updated_at = now()
           FROM subscriber
          WHERE m.environment_id = $1 AND m.subscriber_id = subscriber.id AND m.id = ANY($3::text[]) AND NOT m.deleted
         RETURNING m.*
       )
       SELECT subscriber.id AS subscriber_row_id, updated.*
         FROM subscriber LEFT JOIN updated ON true
        ORDER BY updated.created_at, updated.id`,
      [environmentId, subscriberId, toMessageIds(messageIds)],
    );
    if (!rows.length) throw new NotFoundException(MESSAGES.subscriberNotFound);
    const messages = rows
      .filter((row) => row.id !== null)
      .map(({ subscriber_row_id: _subscriberRowId, ...message }) => message);
    return this.db.read(MessageEntity, messages);
  }
}
