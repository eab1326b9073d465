import { Logger } from '@nestjs/common';
import type { IntegrationCredentials } from '../../lib/integrations/integrations.service';
import { type DeliveryMessage, DeliveryError, type DeliveryProvider } from '../../lib/providers/delivery-provider';
import { MessageBirdProvider } from '../../lib/providers/sms/messagebird.provider';
import { NexmoProvider } from '../../lib/providers/sms/nexmo.provider';
import { PlivoProvider } from '../../lib/providers/sms/plivo.provider';
import { TelnyxProvider } from '../../lib/providers/sms/telnyx.provider';
import { TwilioProvider } from '../../lib/providers/sms/twilio.provider';
import { useTestApp } from '../fixtures/app';
import type { RunJobRow } from '../fixtures/delivery-run';
import type { TestEnvironment } from '../fixtures/factories';
import { deliverThroughVendor, retryLines, VENDOR_TEST_OPTIONS } from '../fixtures/vendor-delivery';
import {
  formOf,
  messageBirdErrors,
  messageBirdMessage,
  plivoError,
  plivoQueued,
  telnyxErrors,
  telnyxMessage,
  twilioError,
  twilioMessage,
  vonageAccepted,
  vonageRejected,
} from '../fixtures/vendors/sms-vendors';
import { type ReceivedRequest, type ReceiverReply, WebhookReceiver } from '../fixtures/webhook-receiver';

/**
 * The HTTP SMS providers (twilio, nexmo, plivo, telnyx, messagebird) through the real pipeline:
 * trigger → worker → provider → a local server answering as the vendor documents it. For each: the
 * exact request, success, a permanent error (no retry) and a transient error retried through the queue.
 */

const PHONE = '+15550001111';
const TEMPLATE = { content: 'Hi {{ subscriber.firstName }}, your code is {{ payload.code }}' };
const TEXT = 'Hi Ann, your code is 4821';
const REDACTED = '[redacted]';

/** One vendor's expectations. `base` is the local vendor server's URL prefix for that vendor. */
interface SmsVendorCase {
  providerId: string;
  credentials(base: string): IntegrationCredentials;
  /** The path the send must hit (on the local server, prefix included). */
  path: string;
  /** Credential values that must never show up in a stored answer or error. */
  secrets: string[];
  /** The trigger's `overrides.providers[providerId]`. */
  overrides: Record<string, unknown>;
  /** Checks method, headers and the exact body of one send of job `jobId`. */
  expectRequest(request: ReceivedRequest, jobId: string): void;
  /** The name of the idempotency header, when the vendor takes one. */
  idempotencyHeader?: string;
  success: { reply: ReceiverReply; id: string; storedBody: unknown };
  permanent: { reply: ReceiverReply; errorText: string; errorId: string };
  transient: ReceiverReply;
}

const TWILIO_SID = 'AC0123456789abcdef0123456789abcdef';
const TWILIO_TOKEN = 'twilio-auth-token-0123456789';
const twilioAnswer = twilioMessage({ sid: 'SM0123456789abcdef0123456789abcdef', accountSid: TWILIO_SID, to: PHONE, from: '+15005550006', body: TEXT });

const VONAGE_KEY = 'abcd1234';
const VONAGE_SECRET = 'vonage-secret-0123';

const PLIVO_AUTH_ID = 'MAZDQ1ZJIYMDZKMMZKYM';
const PLIVO_TOKEN = 'plivo-auth-token-0123456789';

const TELNYX_KEY = 'KEY0123456789ABCDEF_telnyx-secret';
const TELNYX_PROFILE = '4000eba1-a0c0-4563-9925-b25e842a7cb6';
const telnyxAnswer = telnyxMessage({ id: '40385f64-5717-4562-b3fc-2c963f66afa6', from: '+18445550001', to: PHONE, text: TEXT, messagingProfileId: TELNYX_PROFILE });

const MESSAGEBIRD_KEY = 'live_0123456789abcdefghijklm';

const CASES: SmsVendorCase[] = [
  {
    providerId: 'twilio',
    credentials: (baseUrl) => ({ accountSid: TWILIO_SID, token: TWILIO_TOKEN, from: '+15005550006', baseUrl }),
    path: `/twilio/2010-04-01/Accounts/${TWILIO_SID}/Messages.json`,
    secrets: [TWILIO_SID, TWILIO_TOKEN],
    overrides: { statusCallback: 'https://shop.example/sms-status', mediaUrl: ['https://shop.example/a.png', 'https://shop.example/b.png'] },
    expectRequest(request) {
      expect(request.method).toBe('POST');
      expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`${TWILIO_SID}:${TWILIO_TOKEN}`).toString('base64')}`);
      expect(formOf(request)).toEqual({
        To: PHONE,
        From: '+15005550006',
        Body: TEXT,
        StatusCallback: 'https://shop.example/sms-status',
        MediaUrl: ['https://shop.example/a.png', 'https://shop.example/b.png'],
      });
    },
    success: {
      reply: { status: 201, body: twilioAnswer },
      id: 'SM0123456789abcdef0123456789abcdef',
      // Twilio echoes the account SID (a credential): it is redacted in the stored answer.
      storedBody: JSON.parse(JSON.stringify(twilioAnswer).split(TWILIO_SID).join(REDACTED)),
    },
    permanent: {
      reply: { status: 400, body: twilioError(21211, "The 'To' number +15550001111 is not a valid phone number.", 400) },
      errorText: "Twilio responded with 400: The 'To' number +15550001111 is not a valid phone number.",
      errorId: '21211',
    },
    transient: { status: 429, body: twilioError(20429, 'Too Many Requests', 429) },
  },
  {
    providerId: 'nexmo',
    credentials: (baseUrl) => ({ apiKey: VONAGE_KEY, secretKey: VONAGE_SECRET, from: 'AcmeInc', baseUrl }),
    path: '/nexmo/sms/json',
    secrets: [VONAGE_KEY, VONAGE_SECRET],
    overrides: { clientRef: 'order-42', ttl: 900000 },
    expectRequest(request) {
      expect(request.method).toBe('POST');
      expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(request.headers.authorization).toBeUndefined();
      expect(formOf(request)).toEqual({
        api_key: VONAGE_KEY,
        api_secret: VONAGE_SECRET,
        from: 'AcmeInc',
        to: '15550001111',
        text: TEXT,
        'client-ref': 'order-42',
        ttl: '900000',
      });
    },
    success: { reply: { status: 200, body: vonageAccepted('15550001111', '0A0000000123ABCD1') }, id: '0A0000000123ABCD1', storedBody: vonageAccepted('15550001111', '0A0000000123ABCD1') },
    // The SMS API refuses a message with HTTP 200 and a non-zero status.
    permanent: { reply: { status: 200, body: vonageRejected('4', 'Bad Credentials') }, errorText: 'Vonage rejected the message with status 4: Bad Credentials', errorId: '4' },
    transient: { status: 200, body: vonageRejected('1', 'Throughput Rate Exceeded - please wait [ 30 ] and retry') },
  },
  {
    providerId: 'plivo',
    credentials: (baseUrl) => ({ accountSid: PLIVO_AUTH_ID, token: PLIVO_TOKEN, from: '14155550100', baseUrl }),
    path: `/plivo/v1/Account/${PLIVO_AUTH_ID}/Message/`,
    secrets: [PLIVO_AUTH_ID, PLIVO_TOKEN],
    overrides: { url: 'https://shop.example/plivo-status', log: false },
    expectRequest(request) {
      expect(request.method).toBe('POST');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`${PLIVO_AUTH_ID}:${PLIVO_TOKEN}`).toString('base64')}`);
      expect(request.body).toEqual({ src: '14155550100', dst: '15550001111', text: TEXT, url: 'https://shop.example/plivo-status', log: false });
    },
    success: {
      reply: { status: 202, body: plivoQueued('db3ce55a-7f1d-11e1-8ea7-1231380bc196') },
      id: 'db3ce55a-7f1d-11e1-8ea7-1231380bc196',
      storedBody: plivoQueued('db3ce55a-7f1d-11e1-8ea7-1231380bc196'),
    },
    permanent: { reply: { status: 401, body: plivoError('authentication failed') }, errorText: 'Plivo responded with 401: authentication failed', errorId: 'unexpected_provider_error' },
    transient: { status: 503, body: 'Service Unavailable' },
  },
  {
    providerId: 'telnyx',
    credentials: (baseUrl) => ({ apiKey: TELNYX_KEY, messageProfileId: TELNYX_PROFILE, from: '+18445550001', baseUrl }),
    path: '/telnyx/v2/messages',
    secrets: [TELNYX_KEY, TELNYX_PROFILE],
    overrides: { webhookUrl: 'https://shop.example/telnyx', useProfileWebhooks: false },
    idempotencyHeader: 'idempotency-key',
    expectRequest(request, jobId) {
      expect(request.method).toBe('POST');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers.authorization).toBe(`Bearer ${TELNYX_KEY}`);
      expect(request.headers['idempotency-key']).toBe(jobId);
      expect(request.body).toEqual({
        from: '+18445550001',
        to: PHONE,
        text: TEXT,
        messaging_profile_id: TELNYX_PROFILE,
        webhook_url: 'https://shop.example/telnyx',
        use_profile_webhooks: false,
      });
    },
    success: {
      reply: { status: 200, body: telnyxAnswer },
      id: '40385f64-5717-4562-b3fc-2c963f66afa6',
      storedBody: JSON.parse(JSON.stringify(telnyxAnswer).split(TELNYX_PROFILE).join(REDACTED)),
    },
    permanent: {
      reply: { status: 401, body: telnyxErrors('10009', 'Authentication failed', 'The API key looks malformed. Check that you copied it correctly.') },
      errorText: 'Telnyx responded with 401: The API key looks malformed. Check that you copied it correctly.',
      errorId: '10009',
    },
    transient: { status: 429, body: telnyxErrors('10011', 'Too many requests', 'You have exceeded the rate limit.') },
  },
  {
    providerId: 'messagebird',
    credentials: (baseUrl) => ({ accessKey: MESSAGEBIRD_KEY, from: 'Shop', baseUrl }),
    path: '/messagebird/messages',
    secrets: [MESSAGEBIRD_KEY],
    overrides: { reportUrl: 'https://shop.example/mb-status', validity: 3600 },
    expectRequest(request, jobId) {
      expect(request.method).toBe('POST');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers.authorization).toBe(`AccessKey ${MESSAGEBIRD_KEY}`);
      expect(request.body).toEqual({
        originator: 'Shop',
        recipients: ['15550001111'],
        body: TEXT,
        reference: jobId,
        reportUrl: 'https://shop.example/mb-status',
        validity: 3600,
      });
    },
    success: {
      reply: { status: 201, body: messageBirdMessage({ id: '49e40bae0b374f1ca5e3d04d46edc7c1', originator: 'Shop', recipient: '15550001111', body: TEXT, reference: 'ref' }) },
      id: '49e40bae0b374f1ca5e3d04d46edc7c1',
      storedBody: messageBirdMessage({ id: '49e40bae0b374f1ca5e3d04d46edc7c1', originator: 'Shop', recipient: '15550001111', body: TEXT, reference: 'ref' }),
    },
    permanent: {
      reply: { status: 401, body: messageBirdErrors(2, 'Request not allowed (incorrect access_key)', 'access_key') },
      errorText: 'MessageBird responded with 401: Request not allowed (incorrect access_key)',
      errorId: '2',
    },
    transient: { status: 500, body: messageBirdErrors(99, 'Internal error', null) },
  },
];

describe('SMS providers through the pipeline, against local vendor servers', () => {
  const t = useTestApp('fastify', { options: VENDOR_TEST_OPTIONS });
  let vendor: WebhookReceiver;

  beforeAll(async () => {
    vendor = await WebhookReceiver.start();
  });
  afterAll(() => vendor.close());
  beforeEach(() => vendor.reset());

  describe.each(CASES)('$providerId', (c) => {
    let env: TestEnvironment | undefined;
    let subscribers = 0;
    const deliver = async () => {
      const run = await deliverThroughVendor(t, {
        providerId: c.providerId,
        channel: 'sms',
        credentials: c.credentials(vendor.url(`/${c.providerId}`)),
        to: { subscriberId: `ann-${c.providerId}-${++subscribers}`, firstName: 'Ann', phone: PHONE },
        template: TEMPLATE,
        payload: { code: 4821 },
        overrides: { providers: { [c.providerId]: c.overrides } },
        env,
      });
      env = run.env;
      return run;
    };

    it('sends the documented request, stores the vendor id and records the answer', async () => {
      vendor.respond(c.path, c.success.reply);

      const { job, message } = await deliver();

      const requests = vendor.requestsTo(c.path);
      expect(requests).toHaveLength(1);
      c.expectRequest(requests[0], job.id);
      expect(job).toMatchObject({ status: 'completed', providerId: c.providerId, error: null });
      expect(message).toMatchObject({ status: 'sent', provider_id: c.providerId, phone: PHONE, content: TEXT, provider_message_id: c.success.id, error_text: null });
      expect(detail(job, 'Message sent')).toEqual({ status: 'Success', raw: { status: c.success.reply.status, body: c.success.storedBody } });
      expect(retryLines(job)).toEqual([]);
      expectNoSecrets(job, c.secrets);
    });

    it('fails a permanent vendor error at once, with the vendor answer in the log', async () => {
      vendor.respond(c.path, c.permanent.reply);

      const { job, message } = await deliver();

      expect(vendor.requestsTo(c.path)).toHaveLength(1);
      expect(job.status).toBe('failed');
      expect(message).toMatchObject({ status: 'error', error_text: c.permanent.errorText, error_id: c.permanent.errorId, provider_message_id: null });
      expect(detail(job, 'Unexpected provider error')).toEqual({
        status: 'Failed',
        raw: { error: c.permanent.errorText, response: { status: c.permanent.reply.status, body: c.permanent.reply.body } },
      });
      expect(job.details.map((d) => d.detail)).not.toContain('Provider error, the send will be retried');
      expect(retryLines(job)).toEqual([]);
      expectNoSecrets(job, c.secrets);
    });

    it('retries a transient vendor error through the queue and succeeds', async () => {
      vendor.respond(c.path, (_request, index) => (index === 0 ? c.transient : c.success.reply));

      const { job, message } = await deliver();

      const requests = vendor.requestsTo(c.path);
      expect(requests).toHaveLength(2);
      for (const request of requests) c.expectRequest(request, job.id);
      if (c.idempotencyHeader) expect(requests[1].headers[c.idempotencyHeader]).toBe(requests[0].headers[c.idempotencyHeader]);
      expect(requests[1].rawBody.equals(requests[0].rawBody)).toBe(true);

      expect(job.status).toBe('completed');
      expect(message).toMatchObject({ status: 'sent', provider_message_id: c.success.id, error_text: null });
      const scheduled = job.details.findIndex((d) => d.detail === 'Provider error, the send will be retried');
      expect(scheduled).toBeGreaterThan(0);
      expect(job.details[scheduled]).toMatchObject({ status: 'Warning', isRetry: false });
      // Every line after the first try belongs to the retry.
      const retry = job.details.slice(scheduled + 1);
      expect(retry.length).toBeGreaterThan(0);
      expect(retry.every((d) => d.isRetry)).toBe(true);
      expect(retry.at(-1)).toMatchObject({ detail: 'Message sent', status: 'Success', isRetry: true });
      expectNoSecrets(job, c.secrets);
    });
  });
});

describe('SMS providers: vendor-specific mapping (direct sends)', () => {
  let vendor: WebhookReceiver;

  beforeAll(async () => {
    Logger.overrideLogger(['error', 'warn']);
    vendor = await WebhookReceiver.start();
  });
  afterAll(() => vendor.close());
  beforeEach(() => vendor.reset());

  const send = (provider: DeliveryProvider, credentials: IntegrationCredentials, overrides: Partial<DeliveryMessage> = {}) =>
    provider.send(smsMessage(overrides), credentials);

  it('nexmo: a text outside GSM 03.38 goes as unicode, a GSM one without a type', async () => {
    vendor.respond('/sms/json', { body: vonageAccepted('15550001111', 'id-1') });
    const credentials = { apiKey: VONAGE_KEY, secretKey: VONAGE_SECRET, from: 'AcmeInc', baseUrl: vendor.url() };

    await send(new NexmoProvider(), credentials, { content: 'Ünïcode ✓ 你好' });
    await send(new NexmoProvider(), credentials, { content: 'Plain {ascii} [€] text' });

    const [unicode, plain] = vendor.requests.map(formOf);
    expect(unicode).toMatchObject({ text: 'Ünïcode ✓ 你好', type: 'unicode' });
    expect(plain.type).toBeUndefined();
  });

  it('nexmo: a long text answered in several parts stores the first part id; a throttled part is transient unless another part went out', async () => {
    const credentials = { apiKey: VONAGE_KEY, secretKey: VONAGE_SECRET, from: 'AcmeInc', baseUrl: vendor.url() };
    vendor.respond('/sms/json', { body: vonageAccepted('15550001111', 'part-1', 'part-2') });
    expect(await send(new NexmoProvider(), credentials)).toMatchObject({ id: 'part-1' });

    vendor.respond('/sms/json', { body: vonageRejected('1', 'Throughput Rate Exceeded') });
    const throttled = await deliveryError(send(new NexmoProvider(), credentials));
    expect(throttled).toMatchObject({ message: 'Vonage rejected the message with status 1: Throughput Rate Exceeded', transient: true, code: '1' });

    vendor.respond('/sms/json', {
      body: { 'message-count': '2', messages: [{ status: '0', 'message-id': 'part-1' }, { status: '1', 'error-text': 'Throughput Rate Exceeded' }] },
    });
    const partial = await deliveryError(send(new NexmoProvider(), credentials));
    expect(partial).toMatchObject({ transient: false, code: '1' });

    vendor.respond('/sms/json', { body: vonageRejected('10', 'Too Many Existing Binds') });
    expect(await deliveryError(send(new NexmoProvider(), credentials))).toMatchObject({ transient: true, code: '10' });
    vendor.respond('/sms/json', { body: vonageRejected('15', 'Illegal Sender Address - rejected') });
    expect(await deliveryError(send(new NexmoProvider(), credentials))).toMatchObject({ transient: false, code: '15' });
  });

  it('twilio: a null override drops a field, objects go as JSON text', async () => {
    vendor.respond(`/2010-04-01/Accounts/${TWILIO_SID}/Messages.json`, { status: 201, body: { sid: 'SM1' } });

    await send(new TwilioProvider(), { accountSid: TWILIO_SID, token: TWILIO_TOKEN, from: '+15005550006', baseUrl: vendor.url() }, {
      overrides: { from: null, messagingServiceSid: 'MG0123', contentVariables: { 1: 'Ann' } },
    });

    expect(formOf(vendor.requests[0])).toEqual({ To: PHONE, Body: 'Hello', MessagingServiceSid: 'MG0123', ContentVariables: '{"1":"Ann"}' });
  });

  it('plivo and messagebird: `from` overrides the sender field, the phone goes as digits only', async () => {
    vendor.respond(`/v1/Account/${PLIVO_AUTH_ID}/Message/`, { status: 202, body: plivoQueued('uuid-1') });
    vendor.respond('/messages', { status: 201, body: { id: 'mb-1' } });
    const to = { phone: '+1 (555) 000-1111<+15550002222' };

    await send(new PlivoProvider(), { accountSid: PLIVO_AUTH_ID, token: PLIVO_TOKEN, from: '14155550100', baseUrl: vendor.url() }, { overrides: { from: 'ALERTS' }, to: recipient(to) });
    await send(new MessageBirdProvider(), { accessKey: MESSAGEBIRD_KEY, from: 'Shop', baseUrl: vendor.url() }, { overrides: { from: 'ALERTS' }, to: recipient(to), content: 'Привет' });

    expect(vendor.requests[0].body).toEqual({ src: 'ALERTS', dst: '1555000111115550002222', text: 'Hello' });
    expect(vendor.requests[1].body).toMatchObject({ originator: 'ALERTS', recipients: ['1555000111115550002222'], body: 'Привет', datacoding: 'unicode' });
  });

  it('refuses a subscriber without a phone before any request', async () => {
    for (const provider of [new TwilioProvider(), new NexmoProvider(), new PlivoProvider(), new TelnyxProvider(), new MessageBirdProvider()]) {
      const error = await deliveryError(send(provider, { accountSid: 'AC1', token: 't', apiKey: 'k', secretKey: 's', accessKey: 'a', from: 'x', baseUrl: vendor.url() }, { to: recipient({ phone: null }) }));
      expect(error.message).toBe('The subscriber has no phone number');
    }
    expect(vendor.requests).toHaveLength(0);
  });

  it('redacts a credential the vendor echoes in an error, and reports a network failure as transient', async () => {
    vendor.respond('/v2/messages', { status: 401, body: telnyxErrors('10009', 'Authentication failed', `Key ${TELNYX_KEY} is unknown`) });

    const echoed = await deliveryError(send(new TelnyxProvider(), { apiKey: TELNYX_KEY, messageProfileId: TELNYX_PROFILE, from: '+18445550001', baseUrl: vendor.url() }));

    expect(echoed.message).toBe(`Telnyx responded with 401: Key ${REDACTED} is unknown`);
    expect(JSON.stringify(echoed.raw)).not.toContain(TELNYX_KEY);
    expect(echoed).toMatchObject({ transient: false, code: '10009' });

    const closed = await WebhookReceiver.start();
    const deadBase = closed.url();
    await closed.close();
    const unreachable = await deliveryError(send(new MessageBirdProvider(), { accessKey: MESSAGEBIRD_KEY, from: 'Shop', baseUrl: deadBase }));
    expect(unreachable).toMatchObject({ transient: true, code: 'network_error' });
    expect(unreachable.message).toMatch(/^MessageBird request failed: /);
  });

  it('declares the credentials Novu requires for each vendor', () => {
    expect(new TwilioProvider().requiredCredentials).toEqual(['accountSid', 'token', 'from']);
    expect(new NexmoProvider().requiredCredentials).toEqual(['apiKey', 'secretKey', 'from']);
    expect(new PlivoProvider().requiredCredentials).toEqual(['accountSid', 'token', 'from']);
    expect(new TelnyxProvider().requiredCredentials).toEqual(['apiKey', 'messageProfileId', 'from']);
    expect(new MessageBirdProvider().requiredCredentials).toEqual(['accessKey', 'from']);
  });
});

/** The one line of a job's log with that text: its status and raw. */
function detail(job: RunJobRow, text: string): { status: string; raw: unknown } {
  const lines = job.details.filter((d) => d.detail === text);
  expect(lines).toHaveLength(1);
  return { status: lines[0].status, raw: lines[0].raw };
}

/** No credential value in the job's log or error. */
function expectNoSecrets(job: RunJobRow, secrets: string[]): void {
  const stored = JSON.stringify({ details: job.details, error: job.error });
  for (const secret of secrets) expect(stored).not.toContain(secret);
}

function recipient(to: Partial<DeliveryMessage['to']>): DeliveryMessage['to'] {
  return { subscriberId: 'sub-1', phone: PHONE, ...to };
}

function smsMessage(overrides: Partial<DeliveryMessage> = {}): DeliveryMessage {
  return {
    channel: 'sms',
    jobId: '65f000000000000000000001',
    transactionId: 'txn-1',
    environmentId: '65f0000000000000000000e1',
    workflowIdentifier: 'otp',
    to: recipient({}),
    content: 'Hello',
    payload: {},
    overrides: {},
    timeoutMs: 2000,
    attempt: 0,
    ...overrides,
  };
}

/** The DeliveryError a send rejects with (fails the test when it resolves or throws something else). */
async function deliveryError(promise: Promise<unknown>): Promise<DeliveryError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}
