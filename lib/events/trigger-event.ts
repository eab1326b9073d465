import { CHAT_OR_PUSH_PROVIDER_IDS } from '../common/enums';
import { MAX_IDENTIFIER_LENGTH } from '../common/limits';
import type { SubscriberChannelInput, UpsertSubscriberInput } from '../subscribers/subscribers.service';

/** Most events one bulk trigger may carry. */
export const MAX_BULK_EVENTS = 100;

/** Most recipients one event may name in `to` (counted as given, before deduplication). */
export const MAX_RECIPIENTS_PER_EVENT = 100;


/**
 * Deepest nesting accepted in an event (payload, overrides, context...). PostgreSQL's JSON parser
 * recurses and gives up on very deep documents; refusing them here keeps that a per-event error.
 */
export const MAX_NESTING_DEPTH = 64;

/** What a bulk trigger answers for one event (`TriggerEventResponseDto.status`). */
export const TRIGGER_EVENT_STATUSES = [
  'error',
  'trigger_not_active',
  'no_workflow_active_steps_defined',
  'no_workflow_steps_defined',
  'processed',
  'no_tenant_found',
  'invalid_recipients',
] as const;
export type TriggerEventStatus = (typeof TRIGGER_EVENT_STATUSES)[number];

/**
 * A recipient (or actor) given as an object: created when new, otherwise only the fields given are
 * changed (a field set to null is cleared, `data` and `channels` are replaced whole).
 */
export type TriggerSubscriberInput = UpsertSubscriberInput;

/** A topic recipient. Part of the contract, not supported here: it counts as an invalid recipient. */
export interface TriggerTopicInput {
  type: 'Topic';
  topicKey: string;
  exclude?: string[];
}

/** One entry of `to`: a subscriberId, a subscriber object, or (unsupported) a topic. */
export type TriggerRecipientInput = string | TriggerSubscriberInput | TriggerTopicInput;

/** A tenant named by an event: it must exist; `name` and `data`, when given, update it. */
export interface TriggerTenantInput {
  identifier: string;
  name?: string;
  data?: Record<string, unknown>;
}

/** One entry of an event's `context`. */
export type TriggerContextValue = string | { id: string; data?: Record<string, unknown> };

/**
 * One event of {@link EventsService.triggerBulk}. Values are checked at run time whatever their
 * static type: a malformed event gets `status: "error"` instead of failing the whole call.
 * @publicApi
 */
export interface TriggerEventInput {
  /** The workflow's trigger identifier (the SDK's `workflowId`). */
  name: string;
  /** At most {@link MAX_RECIPIENTS_PER_EVENT}; deduplicated by subscriberId, the last one wins. */
  to: TriggerRecipientInput | TriggerRecipientInput[];
  /** Default `{}`. */
  payload?: Record<string, unknown>;
  /** Default `{}`; stored on every job as given. */
  overrides?: Record<string, unknown>;
  /** Unique in the environment; `txn_<24-hex id>` is generated when omitted. */
  transactionId?: string;
  /** Upserted as a subscriber like a recipient; shown as the actor of the notification. */
  actor?: string | TriggerSubscriberInput;
  tenant?: string | TriggerTenantInput;
  context?: Record<string, TriggerContextValue>;
  /** Not supported (workflows live in the host app): an event that sets it answers `error`. */
  bridgeUrl?: string;
}

/**
 * The result of one event, in the order of the request. `acknowledged` is always true.
 * @publicApi
 */
export interface TriggerEventResponse {
  acknowledged: true;
  status: TriggerEventStatus;
  /** For `error`: why. */
  error?: string[];
  /** The event's transactionId (given or generated), whenever it is known. */
  transactionId?: string;
}

/** The subscriber fields stored as text, in the order of the upsert. */
export const SUBSCRIBER_TEXT_FIELDS = ['firstName', 'lastName', 'email', 'phone', 'avatar', 'locale', 'timezone'] as const;
type SubscriberTextField = (typeof SUBSCRIBER_TEXT_FIELDS)[number];

/** The fields of a subscriber an event gave: only those present are written. */
export type SubscriberFields = Partial<Record<SubscriberTextField, string | null>> & {
  data?: Record<string, unknown> | null;
  channels?: SubscriberChannelInput[];
};

/** A recipient or actor after validation. */
export interface ParsedSubscriber {
  /** Trimmed. */
  subscriberId: string;
  fields: SubscriberFields;
  /** As given (a string becomes `{ subscriberId }`), with the trimmed subscriberId: the notification's `to` / `actor`. */
  given: Record<string, unknown>;
  /** Where it was given (`to[2]`, `actor`), for error messages. */
  path: string;
}

/** An event whose shape is valid; whether it can run is decided against the database. */
export interface ParsedEvent {
  name: string;
  /** The caller's transactionId, when given. */
  transactionId?: string;
  payload: Record<string, unknown>;
  overrides: Record<string, unknown>;
  /** Valid recipients, deduplicated by subscriberId (the last one wins, at the first one's position). */
  recipients: ParsedSubscriber[];
  actor: ParsedSubscriber | null;
  tenant: { identifier: string; name?: string; data?: Record<string, unknown> } | null;
  context: Record<string, unknown> | null;
}

export type ParseResult = { ok: true; event: ParsedEvent } | { ok: false; errors: string[]; transactionId?: string };

const CHAT_OR_PUSH = new Set<string>(CHAT_OR_PUSH_PROVIDER_IDS);

/**
 * Checks the shape of one event, as class-validator would check a DTO but without failing the
 * request: every problem becomes a message of the event's `error` result. Recipients are the
 * exception: an unusable recipient (no subscriberId, a topic, a number...) is dropped, and an event
 * left without any answers `invalid_recipients` later.
 */
export function parseTriggerEvent(raw: unknown): ParseResult {
  if (!isPlainObject(raw)) return { ok: false, errors: ['event must be an object'] };
  const errors: string[] = [];
  const unstorable = findUnstorableValue(raw);
  if (unstorable) errors.push(unstorable);

  let transactionId: string | undefined;
  if (raw.transactionId !== undefined && raw.transactionId !== null) {
    if (typeof raw.transactionId !== 'string') errors.push('transactionId must be a string');
    else if (raw.transactionId.length > MAX_IDENTIFIER_LENGTH) {
      errors.push(`transactionId must be shorter than or equal to ${MAX_IDENTIFIER_LENGTH} characters`);
    } else if (raw.transactionId !== '') transactionId = raw.transactionId;
  }

  if (raw.name === undefined || raw.name === null) errors.push('name should not be null or undefined', 'name must be a string');
  else if (typeof raw.name !== 'string') errors.push('name must be a string');

  const payload = optionalObject(raw.payload, 'payload', errors) ?? {};
  const overrides = optionalObject(raw.overrides, 'overrides', errors) ?? {};

  if (raw.bridgeUrl !== undefined && raw.bridgeUrl !== null) {
    errors.push('bridgeUrl is not supported: workflows are defined in the host application');
  }

  const recipients = parseRecipients(raw.to, errors);

  let actor: ParsedSubscriber | null = null;
  if (raw.actor !== undefined && raw.actor !== null) {
    const parsed = parseSubscriber(raw.actor, 'actor', errors);
    if (parsed === undefined) errors.push('actor must be a subscriberId or a subscriber object with a subscriberId');
    else actor = parsed;
  }

  const tenant = parseTenant(raw.tenant, errors);
  const context = parseContext(raw.context, errors);

  if (errors.length) return { ok: false, errors, ...(transactionId !== undefined && { transactionId }) };
  return {
    ok: true,
    event: { name: raw.name as string, transactionId, payload, overrides, recipients: recipients ?? [], actor, tenant, context },
  };
}

/** Reads a dotted path (`order.id`) of own properties; undefined when any step is missing. */
export function readPath(source: Record<string, unknown>, path: string): unknown {
  let current: unknown = source;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object' || !Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function parseRecipients(to: unknown, errors: string[]): ParsedSubscriber[] | undefined {
  if (to === undefined || to === null) {
    errors.push('to should not be null or undefined');
    return undefined;
  }
  let items: unknown[];
  if (Array.isArray(to)) {
    if (to.length > MAX_RECIPIENTS_PER_EVENT) {
      errors.push(`to must contain no more than ${MAX_RECIPIENTS_PER_EVENT} elements`);
      return undefined;
    }
    items = to;
  } else if (typeof to === 'string' || isPlainObject(to)) {
    items = [to];
  } else {
    errors.push('to must be a subscriberId, a subscriber object, or an array of them');
    return undefined;
  }
  const paths = Array.isArray(to) ? items.map((_, index) => `to[${index}]`) : ['to'];
  // A Map keeps the first position of a key and the last value set: "last wins" without reordering.
  const unique = new Map<string, ParsedSubscriber>();
  items.forEach((item, index) => {
    if (isPlainObject(item) && isTopic(item)) return;
    const parsed = parseSubscriber(item, paths[index], errors);
    if (parsed) unique.set(parsed.subscriberId, parsed);
  });
  return [...unique.values()];
}

function isTopic(item: Record<string, unknown>): boolean {
  return item.type === 'Topic' || (item.topicKey !== undefined && item.subscriberId === undefined);
}

/**
 * A subscriber given as a string or an object. Undefined when it has no usable subscriberId (the
 * caller decides whether that is an invalid recipient or an error); malformed fields of an object
 * that does have one are errors.
 */
function parseSubscriber(value: unknown, path: string, errors: string[]): ParsedSubscriber | undefined {
  if (typeof value === 'string') {
    const subscriberId = usableSubscriberId(value);
    return subscriberId === undefined ? undefined : { subscriberId, fields: {}, given: { subscriberId }, path };
  }
  if (!isPlainObject(value)) return undefined;
  const subscriberId = usableSubscriberId(value.subscriberId);
  if (subscriberId === undefined) return undefined;
  const fields: SubscriberFields = {};
  for (const field of SUBSCRIBER_TEXT_FIELDS) {
    const v = value[field];
    if (v === undefined) continue;
    if (v !== null && typeof v !== 'string') errors.push(`${path}.${field} must be a string or null`);
    else if (field === 'email' && v !== null && v.length > MAX_IDENTIFIER_LENGTH) {
      errors.push(`${path}.email must be shorter than or equal to ${MAX_IDENTIFIER_LENGTH} characters`);
    } else fields[field] = v;
  }
  if (value.data !== undefined) {
    if (value.data === null || isPlainObject(value.data)) fields.data = value.data;
    else errors.push(`${path}.data must be an object or null`);
  }
  if (value.channels !== undefined && value.channels !== null) {
    const channels = parseChannels(value.channels, `${path}.channels`, errors);
    if (channels) fields.channels = channels;
  }
  return { subscriberId, fields, given: { ...value, subscriberId }, path };
}

function usableSubscriberId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed && trimmed.length <= MAX_IDENTIFIER_LENGTH ? trimmed : undefined;
}

function parseChannels(value: unknown, path: string, errors: string[]): SubscriberChannelInput[] | undefined {
  if (!Array.isArray(value)) {
    errors.push(`${path} must be an array`);
    return undefined;
  }
  const channels: SubscriberChannelInput[] = [];
  value.forEach((channel: unknown, index) => {
    const at = `${path}[${index}]`;
    if (!isPlainObject(channel)) {
      errors.push(`${at} must be an object`);
      return;
    }
    let ok = true;
    if (typeof channel.providerId !== 'string' || !CHAT_OR_PUSH.has(channel.providerId)) {
      errors.push(`${at}.providerId must be one of the chat or push provider ids`);
      ok = false;
    }
    for (const key of ['integrationIdentifier', 'integrationId'] as const) {
      if (channel[key] !== undefined && typeof channel[key] !== 'string') {
        errors.push(`${at}.${key} must be a string`);
        ok = false;
      }
    }
    if (channel.credentials !== undefined && channel.credentials !== null && !isPlainObject(channel.credentials)) {
      errors.push(`${at}.credentials must be an object`);
      ok = false;
    }
    if (ok) channels.push(channel as unknown as SubscriberChannelInput);
  });
  return channels;
}

function parseTenant(value: unknown, errors: string[]): ParsedEvent['tenant'] {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') {
    if (value.trim()) return { identifier: value };
    errors.push('tenant must be an identifier or an object with an identifier');
    return null;
  }
  if (!isPlainObject(value) || typeof value.identifier !== 'string' || !value.identifier.trim()) {
    errors.push('tenant must be an identifier or an object with an identifier');
    return null;
  }
  const tenant: NonNullable<ParsedEvent['tenant']> = { identifier: value.identifier };
  if (value.name !== undefined && value.name !== null) {
    if (typeof value.name === 'string') tenant.name = value.name;
    else errors.push('tenant.name must be a string');
  }
  if (value.data !== undefined && value.data !== null) {
    if (isPlainObject(value.data)) tenant.data = value.data;
    else errors.push('tenant.data must be an object');
  }
  return tenant;
}

function parseContext(value: unknown, errors: string[]): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value)) {
    errors.push('context must be an object');
    return null;
  }
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry === 'string') continue;
    if (!isPlainObject(entry) || typeof entry.id !== 'string') {
      errors.push(`context.${key} must be a string or an object with a string id`);
    } else if (entry.data !== undefined && !isPlainObject(entry.data)) {
      errors.push(`context.${key}.data must be an object`);
    }
  }
  return value;
}

function optionalObject(value: unknown, field: string, errors: string[]): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (isPlainObject(value)) return value;
  errors.push(`${field} must be an object`);
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// An unpaired UTF-16 surrogate: JSON.stringify escapes it and PostgreSQL's jsonb refuses the escape.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Finds what PostgreSQL cannot store in a jsonb or text column: U+0000, an unpaired surrogate, or
 * nesting deeper than {@link MAX_NESTING_DEPTH}. Iterative, so a hostile document cannot overflow the
 * stack. Returns the error message, or undefined.
 */
function findUnstorableValue(root: Record<string, unknown>): string | undefined {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: '', depth: 0 }];
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = stringProblem(value);
      if (problem) return `${path} must not contain ${problem}`;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_NESTING_DEPTH) return `${path} is nested too deeply (at most ${MAX_NESTING_DEPTH} levels)`;
    const isArray = Array.isArray(value);
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      const childPath = isArray ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      const problem = stringProblem(key);
      if (problem) return `${childPath} must not contain ${problem}`;
      stack.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return undefined;
}

function stringProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'NUL characters';
  if (LONE_SURROGATE.test(value)) return 'unpaired UTF-16 surrogates';
  return undefined;
}
