import { Injectable, NotFoundException } from '@nestjs/common';
import { NotificationsDatabase } from '../common/database';
import type { ChatOrPushProviderId } from '../common/enums';
import { MESSAGES } from '../common/errors/messages';
import { RequestValidationException } from '../common/errors/validation-errors';
import { generateId } from '../common/id';
import { MAX_IDENTIFIER_LENGTH } from '../common/limits';
import { EnvironmentDirectory } from '../environments/environment-directory';
import type { SubscriberChannel } from './subscriber.entity';
import { SubscriberEntity } from './subscriber.entity';

/** A chat or push channel given on upsert; the integration is found by identifier or provider when its id is omitted. */
export interface SubscriberChannelInput {
  providerId: ChatOrPushProviderId;
  integrationIdentifier?: string;
  integrationId?: string;
  credentials: SubscriberChannel['credentials'];
}

/** What a subscriber is upserted with. Fields left undefined keep their stored value. */
export interface UpsertSubscriberInput {
  subscriberId: string;
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
  phone?: string | null;
  avatar?: string | null;
  locale?: string | null;
  timezone?: string | null;
  data?: Record<string, unknown> | null;
  channels?: SubscriberChannelInput[];
}

const PLAIN_COLUMNS = {
  firstName: 'first_name',
  lastName: 'last_name',
  email: 'email',
  phone: 'phone',
  avatar: 'avatar',
  locale: 'locale',
  timezone: 'timezone',
} as const;

/**
 * Subscribers of an environment.
 * @publicApi
 */
@Injectable()
export class SubscribersService {
  constructor(
    private readonly db: NotificationsDatabase,
    private readonly directory: EnvironmentDirectory,
  ) {}

  /**
   * Creates the subscriber or updates the fields given, in one statement (`INSERT … ON CONFLICT`).
   * @throws RequestValidationException when `subscriberId` is missing.
   */
  async upsert(environmentId: string, input: UpsertSubscriberInput): Promise<SubscriberEntity> {
    if (typeof input?.subscriberId !== 'string' || !input.subscriberId.trim()) {
      throw RequestValidationException.forField('subscriberId', 'subscriberId must be a non-empty string', input?.subscriberId);
    }
    // Both are indexed: a value past a B-tree entry's size would fail in the INSERT instead of being refused.
    for (const field of ['subscriberId', 'email'] as const) {
      const value = input[field];
      if (typeof value === 'string' && value.length > MAX_IDENTIFIER_LENGTH) {
        throw RequestValidationException.forField(field, `${field} must be shorter than or equal to ${MAX_IDENTIFIER_LENGTH} characters`, value.slice(0, 32));
      }
    }
    const organizationId = await this.directory.getOrganizationId(environmentId);
    const columns: string[] = [];
    const values: unknown[] = [generateId(), environmentId, organizationId, input.subscriberId];
    const add = (column: string, value: unknown, cast = '') => {
      values.push(value);
      columns.push(column);
      return `$${values.length}${cast}`;
    };
    const placeholders: string[] = [];
    for (const [field, column] of Object.entries(PLAIN_COLUMNS)) {
      const value = input[field as keyof typeof PLAIN_COLUMNS];
      if (value !== undefined) placeholders.push(add(column, value));
    }
    if (input.data !== undefined) placeholders.push(add('data', input.data === null ? null : JSON.stringify(input.data), '::jsonb'));
    if (input.channels !== undefined) {
      placeholders.push(add('channels', JSON.stringify(await this.resolveChannels(environmentId, input.channels)), '::jsonb'));
    }
    // Only the fields given are updated on conflict; a new row still needs its NOT NULL defaults.
    const updates = columns.map((column) => `"${column}" = EXCLUDED."${column}"`);
    if (input.channels === undefined) placeholders.push(add('channels', '[]', '::jsonb'));
    const { rows } = await this.db.query(
      `INSERT INTO ntf_subscriber (id, environment_id, organization_id, subscriber_id, created_at, updated_at${columns.map((c) => `, "${c}"`).join('')})
       VALUES ($1, $2, $3, $4, now(), now()${placeholders.map((p) => `, ${p}`).join('')})
       ON CONFLICT (environment_id, subscriber_id) DO UPDATE SET
         ${updates.length ? `${updates.join(', ')}, updated_at = now(), version = ntf_subscriber.version + 1` : 'subscriber_id = EXCLUDED.subscriber_id'}
       RETURNING *`,
      values,
    );
    return this.db.read(SubscriberEntity, rows)[0];
  }

  /** @throws NotFoundException `Subscriber not found`. */
  async findOne(environmentId: string, subscriberId: string): Promise<SubscriberEntity> {
    const subscriber = await this.db.fork().findOne(SubscriberEntity, { environmentId, subscriberId, deleted: false });
    if (!subscriber) throw new NotFoundException(MESSAGES.subscriberNotFound);
    return subscriber;
  }

  /**
   * Sets `isOnline`; going offline also stamps `lastOnlineAt`. One UPDATE … RETURNING.
   * @throws NotFoundException `Subscriber not found`.
   */
  async updateOnlineStatus(environmentId: string, subscriberId: string, isOnline: boolean): Promise<SubscriberEntity> {
    const { rows } = await this.db.query(
      `UPDATE ntf_subscriber
          SET is_online = $3,
              last_online_at = CASE WHEN $3 THEN last_online_at ELSE now() END,
              version = version + 1,
              updated_at = now()
        WHERE environment_id = $1 AND subscriber_id = $2 AND deleted = false
        RETURNING *`,
      [environmentId, subscriberId, isOnline],
    );
    if (!rows[0]) throw new NotFoundException(MESSAGES.subscriberNotFound);
    return this.db.read(SubscriberEntity, rows)[0];
  }

  /** Fills in each channel's integration id, with one query for all of them. */
  private async resolveChannels(environmentId: string, channels: SubscriberChannelInput[]): Promise<SubscriberChannel[]> {
    const { rows } = await this.db.query<{ id: string; identifier: string; provider_id: string }>(
      `SELECT id, identifier, provider_id FROM ntf_integration
        WHERE environment_id = $1 AND deleted = false AND provider_id = ANY($2::text[])
        ORDER BY "primary" DESC, active DESC, created_at, id`,
      [environmentId, channels.map((c) => c.providerId)],
    );
    return channels.map((channel, index) => {
      const integration = channel.integrationId
        ? { id: channel.integrationId }
        : rows.find((r) => (channel.integrationIdentifier ? r.identifier === channel.integrationIdentifier : r.provider_id === channel.providerId));
      if (!integration) {
        throw RequestValidationException.forField(
          `channels[${index}].integrationIdentifier`,
          `no integration of provider "${channel.providerId}"${channel.integrationIdentifier ? ` with identifier "${channel.integrationIdentifier}"` : ''} exists in this environment`,
          channel.integrationIdentifier,
        );
      }
      return {
        providerId: channel.providerId,
        ...(channel.integrationIdentifier !== undefined && { integrationIdentifier: channel.integrationIdentifier }),
        integrationId: integration.id,
        credentials: channel.credentials ?? {},
      };
    });
  }
}
