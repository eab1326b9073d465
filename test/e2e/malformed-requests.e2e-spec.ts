import request from 'supertest';
import { NotificationsDatabase, TenantsService } from '../../lib';
import { ADAPTERS, useTestApp } from '../fixtures/app';
import { createEnvironment, createSubscriber, type TestEnvironment } from '../fixtures/factories';
import { createWorkflow } from '../fixtures/notification.factory';
import { eventually } from '../fixtures/pipeline';

/** A small seeded PRNG (mulberry32): the same seed gives the same requests, so failures reproduce. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ODD_STRINGS = [
  '', ' ', 'null', 'undefined', 'true', '0', '-1', '1e309', 'NaN', '9'.repeat(400), '💥🔥', 'ﬀ', '\u202etxt', 'a\u0000b',
  '%00', '../../etc/passwd', "' OR 1=1 --", '<script>alert(1)</script>', '${jndi:x}', '{"a":1}', '[1,2]', 'x'.repeat(5000),
  '0123456789abcdef01234567', '0123456789ABCDEF0123456Z', 'ä'.repeat(300), '\ud800', 'Ω≈ç√∫', '\t\n\r',
];
const ODD_VALUES: unknown[] = [
  null, true, false, 0, -1, 1e308, -1e308, 2 ** 53 + 1, 0.5, [], [null], [[[]]], {}, { $ne: 1 }, { isOnline: true },
  'string', '', '💥', ['a', 1, null], { a: { b: { c: { d: {} } } } }, Array.from({ length: 50 }, (_, i) => i),
];
const BAD_BODIES = ['{bad', '{"isOnline":', 'null', '[]', '"just a string"', '123', '{"a":1}}', '\u0000', '{"markAs":"read","messageId":[', 'ÿþ{'];
const AUTHS = [undefined, '', 'ApiKey', 'ApiKey ', 'Bearer', 'Bearer x', 'Basic dXNlcjpwYXNz', 'apikey lower', 'ApiKey  double-space', 'ApiKey ' + 'k'.repeat(3000), 'ApiKey ÿÿÿ', 'Token abc'];

/** Percent-encodes a path parameter; a lone surrogate cannot be encoded, so it becomes a malformed escape. */
function encodeParam(value: string): string {
  try {
    return encodeURIComponent(value) || 'x';
  } catch {
    return '%E0%A4%A';
  }
}

type Method = 'get' | 'patch' | 'post';
interface Route {
  method: Method;
  path: (param: string) => string;
  body: boolean;
}
const ROUTES: Route[] = [
  { method: 'patch', path: (p) => `/v1/subscribers/${p}/online-status`, body: true },
  { method: 'get', path: () => '/v1/channel-connections', body: false },
  { method: 'post', path: (p) => `/v1/subscribers/${p}/messages/mark-as`, body: true },
  { method: 'get', path: () => '/v1/integrations', body: false },
  { method: 'get', path: (p) => `/v1/notifications/${p}`, body: false },
  { method: 'get', path: () => '/v1/notifications', body: false },
  { method: 'get', path: () => '/v1/messages', body: false },
  { method: 'get', path: (p) => `/v1/subscribers/${p}/notifications/feed`, body: false },
  { method: 'post', path: () => '/v1/events/trigger/bulk', body: true },
];
const QUERY_KEYS = [
  'limit', 'after', 'before', 'orderBy', 'orderDirection', 'includeCursor', 'subscriberId', 'channel', 'providerId', 'integrationIdentifier',
  'contextKeys', 'unknown', 'page', 'read', 'seen', 'payload', 'transactionId', 'channels', 'subscriberIds',
];

/** A string of `length` characters PostgreSQL cannot compress: too big for any B-tree index entry (about 2.7 kB). */
function incompressible(random: () => number, length: number): string {
  let text = '';
  while (text.length < length) text += Math.floor(random() * 2 ** 32).toString(36);
  return text.slice(0, length);
}

/** `{ a: { a: ... } }` nested `depth` times (or arrays), built iteratively. */
function nested(depth: number, asArray = false): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = asArray ? [value] : { a: value };
  return value;
}

const BULK = '/v1/events/trigger/bulk';
/** Workflows of the fuzzed environment: events that pass validation really run, through every kind of step that reads the payload. */
const FUZZ_WORKFLOWS = ['fuzz-inapp', 'fuzz-digest', 'fuzz-delay'];

/** Wrong values for each field of an event. Built once per run: the big ones are costly to make. */
function badValues(random: () => number): Record<string, unknown[]> {
  const hugeOnes = Array.from({ length: 4 }, () => incompressible(random, 6000));
  let next = 0;
  const huge = () => hugeOnes[next++ % hugeOnes.length];
  return {
    name: [123, 0, true, {}, [], ['fuzz-inapp'], { identifier: 'fuzz-inapp' }, '', ' ', 'no-such-workflow', 'fuzz-inapp\u0000', '\ud800', huge(), 'x'.repeat(100_000)],
    to: [
      42, true, [], [[['ada']]], [null, 1, 'ada'], [[]], {}, { subscriberId: 5 }, { subscriberId: '' }, { subscriberId: '   ' }, { subscriberId: 'a\u0000b' },
      { subscriberId: huge() }, { subscriberId: ['ada'] }, { subscriberId: {} }, { subscriberId: null }, Array.from({ length: 101 }, (_, i) => `r-${i}`),
      { type: 'Topic', topicKey: 5 }, { topicKey: 'news' }, { subscriberId: 'fz-1', email: huge() }, { subscriberId: 'fz-1', firstName: 5 },
      { subscriberId: 'fz-1', data: [1] }, { subscriberId: 'fz-1', data: 'x' }, { subscriberId: 'fz-1', channels: 'x' }, { subscriberId: 'fz-1', channels: [null, 1] },
      { subscriberId: 'fz-1', channels: [{ providerId: 'slack', credentials: 'x' }] }, { subscriberId: 'fz-1', channels: [{ providerId: 'nope' }] },
      { subscriberId: 'fz-1', channels: [{ providerId: 'slack', integrationId: 5, credentials: { webhookUrl: 5 } }] }, [{ subscriberId: 'fz-2', phone: {} }],
      { subscriberId: 'fz-3', locale: huge(), timezone: 'Mars/Olympus', lastName: huge(), avatar: huge(), phone: huge() }, 'a\u0000', '\ud800', huge(),
    ],
    payload: [
      [], 'payload', 5, null, true, nested(40), nested(100), nested(3000), nested(100, true), { orderId: huge() }, { orderId: { nested: true } },
      { orderId: null }, { orderId: [1, 2] }, { '\u0000': 1 }, { a: '\ud800' }, { [huge()]: 1 }, { name: '{{ subscriber.firstName }}{% raw %}' },
      { name: '{% for i in (1..100000000) %}x{% endfor %}' }, { sendAt: 'not a date' }, { items: Array.from({ length: 500 }, (_, i) => ({ i })) },
    ],
    overrides: [
      [], 'x', 5, nested(3000), { delay: { amount: 'x', unit: 'seconds' } }, { delay: { amount: -1, unit: 'years' } }, { delay: { amount: 1e308, unit: 'months' } },
      { delay: { amount: 1e9, unit: 'weeks' } }, { delay: { amount: 0.0001, unit: 'seconds' } }, { delay: { amount: 1, unit: 'parsecs' } }, { delay: [] },
      { providers: 5 }, { providers: { 'email-webhook': [] } }, { email: [] }, { '\u0000': {} },
    ],
    tenant: [5, [], {}, { identifier: 5 }, { identifier: '' }, { identifier: ['acme'] }, 'no-such-tenant', '', { identifier: 'acme', name: 5 }, { identifier: 'acme', data: [] }, { identifier: 'acme', name: huge() }, { identifier: huge() }, 'acme\u0000'],
    actor: [5, [], {}, true, '', { subscriberId: 5 }, { subscriberId: 'fz-actor', email: huge() }, { subscriberId: 'fz-actor', data: 5 }, huge()],
    context: [5, [], 'x', true, { k: 5 }, { k: { id: 5 } }, { k: { id: 'a', data: [] } }, { k: null }, { k: [] }, { [huge()]: 'v' }, nested(3000)],
    transactionId: [5, {}, [], true, huge(), 'x'.repeat(256), 'fuzz-dup', 'fuzz-dup', '', 'a\u0000b', '\ud800', ' '],
    bridgeUrl: ['http://127.0.0.1:1/bridge', 5, {}],
  };
}

/** A well-formed event for one of the fuzz workflows, before corruption. */
function baseEvent(random: () => number, index: number): Record<string, unknown> {
  const names = FUZZ_WORKFLOWS;
  return {
    name: names[Math.floor(random() * names.length)],
    to: random() < 0.5 ? `fz-sub-${index % 5}` : [{ subscriberId: `fz-sub-${index % 5}`, firstName: 'Fuzz', email: 'fz@example.com' }],
    payload: { orderId: `o-${index % 3}`, name: 'thing' },
  };
}

/** An event with one to three fields replaced by wrong values (sometimes not an object at all). */
function malformedEvent(random: () => number, index: number, bad: Record<string, unknown[]>): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  if (random() < 0.1) return pick<unknown>([null, 0, 'event', [], [{}], true, nested(3000)]);
  const event = baseEvent(random, index);
  const corruptions = 1 + Math.floor(random() * 3);
  for (let c = 0; c < corruptions; c++) {
    const field = pick([...Object.keys(bad), 'extra']);
    if (field === 'extra') event[pick(['\u0000', '__proto__', 'constructor', 'x'.repeat(300), 'workflowId', 'agentId'])] = pick(ODD_VALUES);
    else if (random() < 0.1) delete event[field];
    else event[field] = pick(bad[field]);
  }
  return event;
}

/** A bulk trigger body: most are lists of events, some corrupt the list itself or the JSON. */
function malformedBulkBody(random: () => number, bad: Record<string, unknown[]>): { raw: string } | { json: unknown } {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const kind = random();
  if (kind < 0.08) return { raw: pick(BAD_BODIES) };
  if (kind < 0.2) {
    return {
      json: pick<unknown>([
        {}, { events: null }, { events: 5 }, { events: 'events' }, { events: {} }, { events: [] }, { events: [[]] }, { events: [[{ name: 'fuzz-inapp', to: 'x' }]] },
        { events: Array.from({ length: 101 }, (_, i) => baseEvent(random, i)) }, { events: { 0: baseEvent(random, 0), length: 1 } }, [baseEvent(random, 0)],
        { events: [baseEvent(random, 0)], extra: nested(3000) }, { events: nested(3000, true) }, { Events: [baseEvent(random, 0)] }, { events: [null] },
      ]),
    };
  }
  const count = 1 + Math.floor(random() * 5);
  const events = Array.from({ length: count }, (_, i) => (random() < 0.6 ? malformedEvent(random, i, bad) : baseEvent(random, i)));
  return { json: { events } };
}

const NUMBER_TEXTS = ['0', '1', '-1', '10', '50', '51', '100', '101', '1.5', '1e3', '1e309', 'NaN', 'Infinity', '-0', '9007199254740993', '99999999999999999999', ' 5 ', '0x10', '５', '', '1,2', 'null', 'true'];
const BOOLEAN_TEXTS = ['true', 'false', 'TRUE', 'False', '1', '0', 'yes', '', 'null', 'undefined', '[true]'];
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const PAYLOAD_TEXTS = [
  b64('not json'), b64('[]'), b64('[1,2]'), b64('null'), b64('123'), b64('"str"'), b64('{"a":"\\u0000"}'), b64('{"a":"\\ud800"}'), b64('{"\\u0000":1}'),
  b64(JSON.stringify(nested(40))), b64(JSON.stringify(nested(2000))), b64('{"orderId":"o-1"}'), b64('{"a":{"b":[1,{"c":null}]}}'), b64('{}'), b64('{"a":1}}'),
  b64('{"orderId":{"$ne":1}}'), b64('{"name":["thing"]}'), '====', '@@@', 'eyJ', 'eyJmb28iOjEyM30', '%', 'e30', 'e30=', 'e3 0=', 'e30-_', b64('\u00ff\u00fe{'), '',
  b64('{"k":"' + 'x'.repeat(3000) + '"}'),
];
/** The parameters of the three listing routes, each with the kind of value it expects. */
const LIST_PARAMS: Record<string, 'number' | 'boolean' | 'payload' | 'string'> = {
  page: 'number', limit: 'number', read: 'boolean', seen: 'boolean', payload: 'payload', channels: 'string', channel: 'string', templates: 'string',
  emails: 'string', search: 'string', subscriberIds: 'string', subscriberId: 'string', severity: 'string', transactionId: 'string', topicKey: 'string',
  subscriptionId: 'string', contextKeys: 'string', after: 'string', before: 'string',
};
const LIST_ROUTES = [(_: string) => '/v1/notifications', (_: string) => '/v1/messages', (p: string) => `/v1/subscribers/${p}/notifications/feed`];

/** Checks one answer: never a 5xx, and every JSON error of the module in the contract's shape. */
function check(res: request.Response, what: string, failures: string[], counts: Record<number, number>): void {
  counts[res.status] = (counts[res.status] ?? 0) + 1;
  if (res.status >= 500) failures.push(`${what} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  else if (res.status >= 400 && res.headers['content-type']?.includes('json')) {
    if (typeof res.body.statusCode !== 'number') failures.push(`${what} → ${res.status} without statusCode: ${JSON.stringify(res.body).slice(0, 200)}`);
  }
}

describe.each(ADAPTERS)('malformed requests never get a 5xx (%s)', (adapter) => {
  const t = useTestApp(adapter);
  let env: TestEnvironment;

  beforeAll(async () => {
    env = await createEnvironment(t.moduleRef);
    await createSubscriber(t.moduleRef, env.environmentId, { subscriberId: 'ada' });
    await t.app.get(TenantsService).create(env.environmentId, { identifier: 'acme', name: 'Acme' });
    const inApp = { type: 'in_app' as const, template: { content: 'Hi {{ subscriber.firstName }}: {{ payload.name }} ({{ step.total_count }}, {{ tenant.name }})' } };
    await createWorkflow(t.app, env.environmentId, { identifier: 'fuzz-inapp', steps: [inApp] });
    await createWorkflow(t.app, env.environmentId, {
      identifier: 'fuzz-digest',
      steps: [{ type: 'digest', metadata: { type: 'regular', amount: 1, unit: 'seconds', digestKey: 'orderId' } }, inApp],
    });
    await createWorkflow(t.app, env.environmentId, { identifier: 'fuzz-delay', steps: [{ type: 'delay', metadata: { type: 'regular', amount: 1, unit: 'seconds' } }, inApp] });
  });

  it('answers 600 random malformed requests with 2xx/4xx only', async () => {
    const random = prng(adapter === 'express' ? 20261121 : 11212026);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const failures: string[] = [];
    const counts: Record<number, number> = {};
    for (let i = 0; i < 600; i++) {
      const route = pick(ROUTES);
      const param = random() < 0.3 ? 'ada' : encodeParam(pick(ODD_STRINGS));
      const query = new URLSearchParams();
      const queryCount = Math.floor(random() * 4);
      for (let q = 0; q < queryCount; q++) query.append(pick(QUERY_KEYS), pick(ODD_STRINGS));
      const url = route.path(param) + (queryCount ? `?${query.toString()}` : '');
      let call = request(t.server)[route.method](url);
      const auth = random() < 0.6 ? env.auth.Authorization : pick(AUTHS);
      if (auth !== undefined) call = call.set('Authorization', Buffer.from(auth, 'utf8').toString('latin1'));
      if (random() < 0.3) call = call.set('Idempotency-Key', random() < 0.2 ? 'k'.repeat(300) : `fuzz-${i % 7}`);
      if (route.body) {
        const kind = random();
        if (kind < 0.35) {
          call = call.set('Content-Type', 'application/json').send(pick(BAD_BODIES));
        } else if (kind < 0.85) {
          const body: Record<string, unknown> = {};
          for (const key of ['isOnline', 'markAs', 'messageId', pick(ODD_STRINGS)]) if (random() < 0.7) body[key] = pick(ODD_VALUES);
          call = call.send(body);
        } else {
          call = call.set('Content-Type', pick(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])).send('isOnline=true');
        }
      }
      check(await call, `${route.method.toUpperCase()} ${url}`, failures, counts);
    }
    expect(failures).toEqual([]);
    // The mix really exercised the error paths.
    expect(Object.keys(counts).filter((status) => Number(status) >= 400).length).toBeGreaterThanOrEqual(4);
  });

  it('answers the cases the fuzzing found with a 4xx or a per-event result, never a 500', async () => {
    const random = prng(42);
    const send = (body: object) => request(t.server).post(BULK).set(env.auth).send(body);
    // Nested deeper than the validation pipe's limit, anywhere in the body: class-transformer would overflow the stack.
    for (const body of [{ events: [{ name: 'fuzz-inapp', to: 'ada', payload: nested(3000) }] }, { events: [baseEvent(random, 0)], extra: nested(3000) }, { events: nested(3000, true) }]) {
      const res = await send(body);
      expect(res.status).toBe(422);
      expect(res.body.message).toBeDefined();
    }
    // An email too long for its index: the event fails, the others of the request go through.
    const email = await send({ events: [{ name: 'fuzz-inapp', to: { subscriberId: 'long-mail', email: incompressible(random, 6000) } }, baseEvent(random, 1)] }).expect(201);
    expect(email.body.map((r: { status: string }) => r.status)).toEqual(['error', 'processed']);
    expect(email.body[0].error).toEqual(['to.email must be shorter than or equal to 255 characters']);
    // A digest key value too long for its index is grouped by its hash: two events of that value share one digest.
    const orderId = incompressible(random, 6000);
    const digest = await send({ events: [1, 2].map(() => ({ name: 'fuzz-digest', to: 'long-key', payload: { orderId } })) }).expect(201);
    expect(digest.body.map((r: { status: string }) => r.status)).toEqual(['processed', 'processed']);
    const keys = await t.app.get(NotificationsDatabase).query<{ group_key: string }>(
      `SELECT DISTINCT group_key FROM ntf_job WHERE environment_id = $1 AND type = 'digest' AND transaction_id = ANY($2::text[])`,
      [env.environmentId, digest.body.map((r: { transactionId: string }) => r.transactionId)],
    );
    expect(keys.rows).toEqual([{ group_key: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) }]);
    // Responses echoing what jsonb cannot hold (an unpaired surrogate, a NUL in a field name) are still
    // recorded for idempotent replay: with U+FFFD in their place.
    const lone = { events: [{ name: 'fuzz-inapp', to: 'ada', transactionId: '\ud800', actor: [] }] };
    for (const replay of [false, true]) {
      const res = await request(t.server).post(BULK).set(env.auth).set('Idempotency-Key', 'lone-surrogate').send(lone).expect(201);
      expect(res.headers['idempotency-replay']).toBe(replay ? 'true' : undefined);
      expect(res.body[0]).toMatchObject({ status: 'error', transactionId: replay ? '\ufffd' : '\ud800' });
    }
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await request(t.server).post(BULK).set(env.auth).set('Idempotency-Key', 'nul-key').send({ events: [{ name: 'fuzz-inapp', to: 'ada', overrides: { '\u0000': {} } }] });
      expect(res.status).toBe(422);
    }
  });

  it('answers 200 malformed bulk triggers with 2xx/4xx only, and the worker runs what they accepted without failing', async () => {
    const random = prng(adapter === 'express' ? 5150 : 5151);
    const bad = badValues(random);
    const failures: string[] = [];
    const counts: Record<number, number> = {};
    const statuses: Record<string, number> = {};
    for (let i = 0; i < 200; i++) {
      const body = malformedBulkBody(random, bad);
      let call = request(t.server).post(BULK).set(env.auth);
      if (random() < 0.2) call = call.set('Idempotency-Key', `bulk-fuzz-${i % 11}`);
      call = 'raw' in body ? call.set('Content-Type', 'application/json').send(body.raw) : call.send(body.json as object);
      const res = await call;
      check(res, `POST ${BULK} #${i} ${('raw' in body ? body.raw : JSON.stringify(body.json)).slice(0, 300)}`, failures, counts);
      if (res.status === 201) {
        // One result per event, each in the contract's shape.
        const events = (body as { json: { events: unknown[] } }).json.events;
        if (!Array.isArray(res.body) || res.body.length !== events.length) failures.push(`#${i}: ${JSON.stringify(res.body).slice(0, 200)} for ${events.length} event(s)`);
        for (const result of Array.isArray(res.body) ? (res.body as Array<{ acknowledged: unknown; status: string }>) : []) {
          if (result.acknowledged !== true) failures.push(`#${i}: result without acknowledged: ${JSON.stringify(result)}`);
          statuses[result.status] = (statuses[result.status] ?? 0) + 1;
        }
      }
    }
    expect(failures).toEqual([]);
    expect(counts[201]).toBeGreaterThan(80);
    expect(counts[422]).toBeGreaterThan(5);
    // Per-event outcomes of every kind, including runs that really started.
    expect(statuses.processed).toBeGreaterThan(40);
    expect(statuses.error).toBeGreaterThan(40);
    expect(Object.keys(statuses).length).toBeGreaterThanOrEqual(4);

    // Whatever was accepted, the worker digests it: no queue entry due and unfinished, none retried or failed.
    const db = t.app.get(NotificationsDatabase);
    const queue = (sql: string) => db.query<{ count: string }>(`SELECT count(*)::text AS count FROM pgboss.job WHERE name = 'ntf_jobs' AND ${sql}`).then((r) => Number(r.rows[0].count));
    await eventually(async () => (await queue(`state IN ('created', 'active') AND start_after <= now()`)) === 0, 30_000, 'the worker to run every due job');
    expect(await queue(`state IN ('retry', 'failed')`)).toBe(0);
    const stuck = await db.query(`SELECT type, status FROM ntf_job WHERE environment_id = $1 AND status IN ('running', 'queued')`, [env.environmentId]);
    expect(stuck.rows).toEqual([]);
  });

  it('answers 500 malformed listing queries (notifications, messages, feed) with 2xx/4xx only', async () => {
    const random = prng(adapter === 'express' ? 777 : 778);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const failures: string[] = [];
    const counts: Record<number, number> = {};
    const keys = Object.keys(LIST_PARAMS);
    for (let i = 0; i < 500; i++) {
      const path = pick(LIST_ROUTES)(random() < 0.6 ? pick(['ada', 'fz-sub-0', 'fz-sub-1']) : encodeParam(pick(ODD_STRINGS)));
      const parts: string[] = [];
      const paramCount = 1 + Math.floor(random() * 4);
      for (let q = 0; q < paramCount; q++) {
        const key = pick(keys);
        const kind = random() < 0.8 ? LIST_PARAMS[key] : pick(['number', 'boolean', 'payload', 'string'] as const);
        const value = kind === 'number' ? pick(NUMBER_TEXTS) : kind === 'boolean' ? pick(BOOLEAN_TEXTS) : kind === 'payload' ? pick(PAYLOAD_TEXTS) : pick(ODD_STRINGS);
        // Bracketed and repeated keys: arrays and objects for parsers that build them.
        const name = pick([key, key, key, `${key}[]`, `${key}[0]`, `${key}[a]`, `${key}.x`]);
        const repeats = random() < 0.15 ? 2 + Math.floor(random() * 3) : 1;
        for (let r = 0; r < repeats; r++) parts.push(`${encodeParam(name)}=${value === '' ? '' : random() < 0.05 ? '%E0%A4%A' : encodeParam(value)}`);
      }
      const url = `${path}?${parts.join('&')}`;
      check(await request(t.server).get(url).set(env.auth), `GET ${url.slice(0, 300)}`, failures, counts);
    }
    expect(failures).toEqual([]);
    expect(counts[200]).toBeGreaterThan(20);
    expect(counts[422]).toBeGreaterThan(100);
  });
});
