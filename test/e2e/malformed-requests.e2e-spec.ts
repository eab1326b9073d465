import request from 'supertest';
import { ADAPTERS, useTestApp } from '../fixtures/app';
import { createEnvironment, createSubscriber, type TestEnvironment } from '../fixtures/factories';

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
];
const QUERY_KEYS = ['limit', 'after', 'before', 'orderBy', 'orderDirection', 'includeCursor', 'subscriberId', 'channel', 'providerId', 'integrationIdentifier', 'contextKeys', 'unknown'];

describe.each(ADAPTERS)('malformed requests never get a 5xx (%s)', (adapter) => {
  const t = useTestApp(adapter);
  let env: TestEnvironment;

  beforeAll(async () => {
    env = await createEnvironment(t.moduleRef);
    await createSubscriber(t.moduleRef, env.environmentId, { subscriberId: 'ada' });
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
      const res = await call;
      counts[res.status] = (counts[res.status] ?? 0) + 1;
      if (res.status >= 500) failures.push(`${route.method.toUpperCase()} ${url} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      else if (res.status >= 400 && res.headers['content-type']?.includes('json')) {
        // Every error answered by the module has the contract's shape.
        if (typeof res.body.statusCode !== 'number') failures.push(`${url} → ${res.status} without statusCode: ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
    // The mix really exercised the error paths.
    expect(Object.keys(counts).filter((status) => Number(status) >= 400).length).toBeGreaterThanOrEqual(4);
  });
});
