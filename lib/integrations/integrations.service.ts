import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { NotificationsDatabase } from '../common/database';
import { CHANNEL_TYPES, type ChannelType, INTEGRATION_KINDS, type IntegrationKind } from '../common/enums';
import { type FieldErrors, RequestValidationException } from '../common/errors/validation-errors';
import { SecretCipher } from '../common/secret-cipher';
import type { StepFilter } from '../common/step-filter';
import { EnvironmentDirectory } from '../environments/environment-directory';
import { DeliveryProviderRegistry } from '../providers/delivery-provider.registry';
import { type IntegrationConfigurations, IntegrationEntity } from './integration.entity';

/** Provider credentials: the contract's `CredentialsDto` fields, strings and a few booleans. */
export type IntegrationCredentials = Record<string, string | boolean | Record<string, unknown> | undefined>;

/** What an integration is created with. */
export interface CreateIntegrationInput {
  name: string;
  /** Unique in the environment; generated from the provider id when omitted. */
  identifier?: string;
  providerId: string;
  /** Required for delivery integrations; agent integrations have none. */
  channel?: ChannelType;
  kind?: IntegrationKind;
  credentials?: IntegrationCredentials;
  configurations?: IntegrationConfigurations;
  /** @default true */
  active?: boolean;
  /** Make this the channel's primary integration (any other primary of the channel stops being one). */
  primary?: boolean;
  priority?: number;
  conditions?: StepFilter[];
}

/**
 * Integrations: configured connections to delivery providers. Credentials are encrypted before they
 * are stored and decrypted only on request ({@link decryptCredentials}).
 * @publicApi
 */
@Injectable()
export class IntegrationsService {
  constructor(
    private readonly db: NotificationsDatabase,
    private readonly directory: EnvironmentDirectory,
    private readonly cipher: SecretCipher,
    private readonly providers: DeliveryProviderRegistry,
  ) {}

  /**
   * @throws RequestValidationException for a malformed input, a provider of another channel, or
   *   credentials missing what the provider requires (`errors.credentials` names the missing fields).
   */
  async create(environmentId: string, input: CreateIntegrationInput): Promise<IntegrationEntity> {
    validateCreateInput(input);
    this.validateForProvider(input);
    const organizationId = await this.directory.getOrganizationId(environmentId);
    const kind = input.kind ?? 'delivery';
    const primary = input.primary ?? false;
    return this.db.fork().transactional(async (em) => {
      if (primary && input.channel) {
        // A channel has at most one primary integration.
        await this.db.query(
          `UPDATE ntf_integration SET "primary" = false, updated_at = now()
            WHERE environment_id = $1 AND channel = $2 AND "primary" AND NOT deleted`,
          [environmentId, input.channel],
          em,
        );
      }
      const integration = em.create(IntegrationEntity, {
        environmentId,
        organizationId,
        name: input.name,
        identifier: input.identifier ?? `${input.providerId}-${randomBytes(3).toString('hex')}`,
        providerId: input.providerId,
        channel: kind === 'agent' ? null : (input.channel ?? null),
        kind,
        credentialsEncrypted: input.credentials ? this.cipher.encrypt(JSON.stringify(input.credentials)) : null,
        configurations: input.configurations ?? {},
        active: input.active ?? true,
        primary,
        priority: input.priority ?? 0,
        conditions: input.conditions ?? [],
      });
      await em.flush();
      return integration;
    });
  }

  /** The environment's integrations (deleted ones hidden), oldest first. */
  async listForEnvironment(environmentId: string): Promise<IntegrationEntity[]> {
    const { rows } = await this.db.query(
      'SELECT * FROM ntf_integration WHERE environment_id = $1 AND NOT deleted ORDER BY created_at, id',
      [environmentId],
    );
    return this.db.read(IntegrationEntity, rows);
  }

  /** Every environment's integrations of an organisation (for session callers), oldest first. */
  async listForOrganization(organizationId: string): Promise<IntegrationEntity[]> {
    const { rows } = await this.db.query(
      'SELECT * FROM ntf_integration WHERE organization_id = $1 AND NOT deleted ORDER BY created_at, id',
      [organizationId],
    );
    return this.db.read(IntegrationEntity, rows);
  }

  /**
   * Checks the input against its provider, when one is registered for `providerId` (the contract
   * lists more providers than the module ships; those integrations are stored as given and fail at
   * send time): the channel must be the provider's, and every required credential present.
   */
  private validateForProvider(input: CreateIntegrationInput): void {
    const provider = this.providers.get(input.providerId);
    if (!provider || (input.kind ?? 'delivery') !== 'delivery') return;
    const errors: Record<string, FieldErrors> = {};
    if (input.channel !== provider.channel) {
      errors.channel = { messages: [`providerId "${input.providerId}" delivers on the ${provider.channel} channel, not ${String(input.channel)}`], value: input.channel };
    }
    const credentials = input.credentials ?? {};
    const missing = provider.requiredCredentials.filter((name) => {
      const value = credentials[name];
      return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
    });
    if (missing.length) {
      errors.credentials = {
        messages: [`credentials for ${input.providerId} are missing: ${missing.join(', ')}`],
        // The names only: the credentials given are secrets and are not echoed back.
        value: missing,
      };
    }
    if (Object.keys(errors).length) throw new RequestValidationException(errors);
  }

  /** The plaintext credentials of an integration (`{}` when it has none). */
  decryptCredentials(integration: IntegrationEntity): IntegrationCredentials {
    return integration.credentialsEncrypted ? (JSON.parse(this.cipher.decrypt(integration.credentialsEncrypted)) as IntegrationCredentials) : {};
  }
}

function validateCreateInput(input: CreateIntegrationInput): void {
  const errors: Record<string, FieldErrors> = {};
  if (typeof input?.name !== 'string' || !input.name.trim()) errors.name = { messages: ['name must be a non-empty string'], value: input?.name };
  if (typeof input?.providerId !== 'string' || !input.providerId.trim()) {
    errors.providerId = { messages: ['providerId must be a non-empty string'], value: input?.providerId };
  }
  if (input?.kind !== undefined && !(INTEGRATION_KINDS as readonly string[]).includes(input.kind)) {
    errors.kind = { messages: [`kind must be one of: ${INTEGRATION_KINDS.join(', ')}`], value: input.kind };
  }
  if ((input?.kind ?? 'delivery') === 'delivery' && !(CHANNEL_TYPES as readonly string[]).includes(input?.channel as string)) {
    errors.channel = { messages: [`channel must be one of: ${CHANNEL_TYPES.join(', ')}`], value: input?.channel };
  }
  if (input?.credentials !== undefined && (typeof input.credentials !== 'object' || input.credentials === null || Array.isArray(input.credentials))) {
    errors.credentials = { messages: ['credentials must be an object'], value: input.credentials };
  }
  if (input?.identifier !== undefined && (typeof input.identifier !== 'string' || !input.identifier.trim())) {
    errors.identifier = { messages: ['identifier must be a non-empty string'], value: input.identifier };
  }
  if (Object.keys(errors).length) throw new RequestValidationException(errors);
}
