import { Injectable, NotFoundException } from '@nestjs/common';
import { NotificationsDatabase } from '../common/database';
import { MESSAGES } from '../common/errors/messages';
import type { SubscriberEntity } from '../subscribers/subscriber.entity';
import type { WorkflowEntity } from '../workflows/workflow.entity';
import { ExecutionDetailEntity } from './execution-detail.entity';
import { JobEntity } from './job.entity';
import { NotificationEntity } from './notification.entity';

/** What a notification shows of its subscriber. */
export type NotificationSubscriberSummary = Pick<SubscriberEntity, 'id' | 'subscriberId' | 'firstName' | 'lastName' | 'email' | 'phone'>;

/** What a notification shows of its workflow. */
export type NotificationWorkflowSummary = Pick<WorkflowEntity, 'id' | 'name' | 'identifier'>;

/** A notification with everything `GET /v1/notifications/{notificationId}` shows. */
export interface NotificationActivity {
  notification: NotificationEntity;
  /** Null when the subscriber no longer exists (deleted). */
  subscriber: NotificationSubscriberSummary | null;
  /** Null when the workflow no longer exists. */
  workflow: NotificationWorkflowSummary | null;
  /** The jobs of the run, the synthetic `trigger` job excluded, oldest first. */
  jobs: JobEntity[];
  /** The execution details of those jobs, oldest first. */
  executionDetails: ExecutionDetailEntity[];
}

/**
 * The statements {@link NotificationsService.findOne} runs, `$1` the notification id and `$2` the
 * environment id. Exported (not publicly) so that the HTTP benchmark's raw baseline runs exactly these.
 *
 * Three statements whatever the number of jobs: the notification joined with its subscriber and
 * workflow (each join pinned to the same environment), then all its jobs, then all their execution
 * details. Both lists come in the order the response needs, straight off the
 * `(notification_id, created_at, id)` indexes.
 */
export const FIND_NOTIFICATION_SQL = {
  notification: `SELECT n.*,
         s.id AS s_id, s.subscriber_id AS s_subscriber_id, s.first_name AS s_first_name, s.last_name AS s_last_name,
         s.email AS s_email, s.phone AS s_phone,
         w.id AS w_id, w.name AS w_name, w.identifier AS w_identifier
    FROM ntf_notification n
    LEFT JOIN ntf_subscriber s ON s.id = n.subscriber_id AND s.environment_id = $2 AND NOT s.deleted
    LEFT JOIN ntf_workflow w ON w.id = n.workflow_id AND w.environment_id = $2
   WHERE n.id = $1 AND n.environment_id = $2`,
  jobs: `SELECT * FROM ntf_job
   WHERE notification_id = $1 AND environment_id = $2 AND type <> 'trigger'
   ORDER BY created_at, id`,
  // The trigger job's lines are filtered out here rather than dropped after the fact.
  executionDetails: `SELECT * FROM ntf_execution_detail
   WHERE notification_id = $1 AND environment_id = $2 AND channel <> 'trigger'
   ORDER BY created_at, id`,
} as const;

/** A row of {@link FIND_NOTIFICATION_SQL.notification}: the notification's columns plus the joined ones. */
interface NotificationRow {
  s_id: string | null;
  s_subscriber_id: string | null;
  s_first_name: string | null;
  s_last_name: string | null;
  s_email: string | null;
  s_phone: string | null;
  w_id: string | null;
  w_name: string | null;
  w_identifier: string | null;
  [column: string]: unknown;
}

/**
 * Notifications: one run of a workflow for one subscriber, with its jobs and execution logs.
 * @publicApi
 */
@Injectable()
export class NotificationsService {
  constructor(private readonly db: NotificationsDatabase) {}

  /**
   * The notification with its subscriber, workflow, jobs and execution details, in three statements
   * however many jobs it has.
   * @throws NotFoundException `Notification not found` when there is no such notification in the environment.
   */
  async findOne(environmentId: string, notificationId: string): Promise<NotificationActivity> {
    const params = [notificationId, environmentId];
    const { rows } = await this.db.query<NotificationRow>(FIND_NOTIFICATION_SQL.notification, params);
    if (!rows[0]) throw new NotFoundException(MESSAGES.notificationNotFound);
    // Jobs and details do not depend on each other: fetch them side by side.
    const [jobs, details] = await Promise.all([
      this.db.query(FIND_NOTIFICATION_SQL.jobs, params),
      this.db.query(FIND_NOTIFICATION_SQL.executionDetails, params),
    ]);
    const { s_id, s_subscriber_id, s_first_name, s_last_name, s_email, s_phone, w_id, w_name, w_identifier, ...notificationRow } = rows[0];
    // Read-only entities (no identity map): this route turns them straight into a response.
    return {
      notification: this.db.read(NotificationEntity, [notificationRow])[0],
      subscriber:
        s_id && s_subscriber_id
          ? { id: s_id, subscriberId: s_subscriber_id, firstName: s_first_name, lastName: s_last_name, email: s_email, phone: s_phone }
          : null,
      workflow: w_id && w_name !== null && w_identifier !== null ? { id: w_id, name: w_name, identifier: w_identifier } : null,
      jobs: this.db.read(JobEntity, jobs.rows),
      executionDetails: this.db.read(ExecutionDetailEntity, details.rows),
    };
  }
}
