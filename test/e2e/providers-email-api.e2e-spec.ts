import type { IntegrationCredentials } from '../../lib';
import { useTestApp } from '../fixtures/app';
import { deliveredLog, logLines } from '../fixtures/delivery-run';
import { createEnvironment, type TestEnvironment } from '../fixtures/factories';
import { type DeliveredRun, deliverThroughVendor, retryLines, VENDOR_TEST_OPTIONS } from '../fixtures/vendor-delivery';
import {
  brevoError,
  brevoSent,
  mailgunQueued,
  mailjetRefused,
  mailjetSent,
  multipartOf,
  postmarkError,
  postmarkSent,
  resendError,
  sendgridError,
} from '../fixtures/vendors/email-api-vendors';
import { type ReceivedRequest, type ReceiverReply, WebhookReceiver } from '../fixtures/webhook-receiver';

/**
 * The HTTP-API email vendors end to end: trigger → worker → provider → a local server answering as
 * SendGrid, Mailgun, Postmark, Resend, Mailjet and Brevo document it. For each: the exact request
 * (method, path, auth, content type, idempotency key, body: HTML and derived text parts, sender, and
 * the trigger's overrides mapped onto the vendor's fields), success (the vendor's id on the message, its
 * answer in `Message sent`), a permanent error (no retry, the vendor's answer in the failed detail, no
 * secret anywhere) and a transient error retried to success with the same request.
 */

const TEMPLATE = {
  subject: 'Order {{ payload.orderId }} for {{ subscriber.firstName }}',
  content: '<p>Hi {{ subscriber.firstName }}, your <a href="https://shop.example.com/orders/{{ payload.orderId }}">order</a> shipped.</p>',
};
const PAYLOAD = { orderId: '7' };
const ANN = { subscriberId: 'ann', firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com' };
const SUBJECT = 'Order 7 for Ann';
const HTML = '<p>Hi Ann, your <a href="https://shop.example.com/orders/7">order</a> shipped.</p>';
const TEXT = 'Hi Ann, your order [https://shop.example.com/orders/7] shipped.';
const FROM = 'no-reply@shop.example.com';
const INVOICE = Buffer.from('Invoice #7: 2 items').toString('base64');

/** The overrides every provider maps onto its own fields (`overrides.providers[providerId]`), plus each vendor's own field. */
const COMMON_OVERRIDES = {
  senderName: 'Shop Orders',
  replyTo: 'support@shop.example.com',
  cc: 'accounts@example.com',
  bcc: ['audit@shop.example.com'],
  headers: { 'X-Order-Id': '7' },
  attachments: [{ name: 'invoice.txt', file: INVOICE, mime: 'text/plain' }],
};

/** One vendor: how to configure it, what it must receive, and how it answers. */
interface EmailApiCase {
  providerId: string;
  /** Credentials pointing at the local server; `secrets` must never be stored anywhere. */
  credentials: (baseUrl: string) => IntegrationCredentials;
  secrets: string[];
  /** The API path under the base URL. */
  path: string;
  /** Request headers that must have exactly these values (`undefined`: absent). */
  headers: (jobId: string) => Record<string, unknown>;
  /** The vendor-specific override merged into the request as is. */
  vendorFields: Record<string, unknown>;
  /** The request body, parsed. */
  parse: (request: ReceivedRequest) => Promise<unknown>;
  /** The exact body, without and with {@link COMMON_OVERRIDES} + `vendorFields`. */
  body: (jobId: string, overridden: boolean) => unknown;
  /** The success answer (Mailjet echoes the request's `CustomID`). */
  accept: (request: ReceivedRequest) => ReceiverReply;
  /** The provider id stored on the message, and the `Message sent` raw. */
  sent: { id: string; raw: (jobId: string) => unknown };
  rejection: { reply: ReceiverReply; text: string; errorId: string };
  transient: ReceiverReply;
}

/** The `CustomID` of a Mailjet request's message. */
const customIdOf = (request: ReceivedRequest): string => (request.body as { Messages: Array<{ CustomID: string }> }).Messages[0].CustomID;
const json = (request: ReceivedRequest): Promise<unknown> => Promise.resolve(request.body);
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

const SENDGRID_KEY = 'SG.test-key.sEnDgRiDsEcReT0123456789';
const MAILGUN_KEY = 'key-mAiLgUnSeCrEt0123456789abcdef';
const POSTMARK_TOKEN = 'pm-server-token-0123-4567-PoStMaRk';
const RESEND_KEY = 're_ReSeNdSeCrEt_0123456789';
const MAILJET_KEY = 'mj-public-key-0123456789abcdef';
const MAILJET_SECRET = 'mj-private-MaIlJeTsEcReT-9876543210';
const BREVO_KEY = 'xkeysib-BrEvOsEcReT0123456789abcdef-AbCdEf';
const MAILJET_UUID = '1ab23cd4-e567-8901-2345-6789f0gh1i2j';

const CASES: EmailApiCase[] = [
  {
    providerId: 'sendgrid',
    credentials: (baseUrl) => ({ apiKey: SENDGRID_KEY, from: FROM, senderName: 'Shop', ipPoolName: 'transactional', baseUrl }),
    secrets: [SENDGRID_KEY],
    path: '/v3/mail/send',
    headers: () => ({ authorization: `Bearer ${SENDGRID_KEY}`, 'content-type': 'application/json', accept: 'application/json', 'idempotency-key': undefined }),
    vendorFields: { categories: ['orders'], tracking_settings: { click_tracking: { enable: false } } },
    parse: json,
    body: (_jobId, overridden) =>
      overridden
        ? {
            personalizations: [{ to: [{ email: ANN.email }], cc: [{ email: 'accounts@example.com' }], bcc: [{ email: 'audit@shop.example.com' }] }],
            from: { email: FROM, name: 'Shop Orders' },
            subject: SUBJECT,
            content: [
              { type: 'text/plain', value: TEXT },
              { type: 'text/html', value: HTML },
            ],
            reply_to: { email: 'support@shop.example.com' },
            attachments: [{ content: INVOICE, filename: 'invoice.txt', type: 'text/plain', disposition: 'attachment' }],
            headers: { 'X-Order-Id': '7' },
            ip_pool_name: 'transactional',
            categories: ['orders'],
            tracking_settings: { click_tracking: { enable: false } },
          }
        : {
            personalizations: [{ to: [{ email: ANN.email }] }],
            from: { email: FROM, name: 'Shop' },
            subject: SUBJECT,
            content: [
              { type: 'text/plain', value: TEXT },
              { type: 'text/html', value: HTML },
            ],
            ip_pool_name: 'transactional',
          },
    accept: () => ({ status: 202, body: '', headers: { 'x-message-id': 'W6A2rKX0Sj6GA9h1iz6R8w' } }),
    sent: { id: 'W6A2rKX0Sj6GA9h1iz6R8w', raw: () => ({ status: 202, headers: { 'x-message-id': 'W6A2rKX0Sj6GA9h1iz6R8w' } }) },
    rejection: {
      reply: { status: 403, body: sendgridError('The from address does not match a verified Sender Identity.', 'from') },
      text: 'SendGrid responded with 403: from: The from address does not match a verified Sender Identity.',
      errorId: 'unexpected_provider_error',
    },
    transient: { status: 503, body: 'upstream connect error' },
  },
  {
    providerId: 'mailgun',
    credentials: (baseUrl) => ({ apiKey: MAILGUN_KEY, domain: 'mg.shop.example.com', user: 'api', from: FROM, senderName: 'Shop', baseUrl }),
    secrets: [MAILGUN_KEY],
    path: '/v3/mg.shop.example.com/messages',
    headers: () => ({ authorization: basic('api', MAILGUN_KEY), 'content-type': expect.stringMatching(/^multipart\/form-data; boundary=/), 'idempotency-key': undefined }),
    vendorFields: { 'o:tag': ['orders', 'shipping'], 'o:tracking': 'no', 't:variables': { orderId: '7' } },
    parse: multipartOf,
    body: (_jobId, overridden) =>
      overridden
        ? {
            from: `"Shop Orders" <${FROM}>`,
            to: ANN.email,
            subject: SUBJECT,
            html: HTML,
            text: TEXT,
            cc: 'accounts@example.com',
            bcc: 'audit@shop.example.com',
            'h:Reply-To': 'support@shop.example.com',
            'h:X-Order-Id': '7',
            'o:tag': ['orders', 'shipping'],
            'o:tracking': 'no',
            't:variables': '{"orderId":"7"}',
            attachment: { filename: 'invoice.txt', type: 'text/plain', content: INVOICE },
          }
        : { from: `"Shop" <${FROM}>`, to: ANN.email, subject: SUBJECT, html: HTML, text: TEXT },
    accept: () => ({ status: 200, body: mailgunQueued('<20261122101532.1.ABCDEF@mg.shop.example.com>') }),
    sent: {
      id: '<20261122101532.1.ABCDEF@mg.shop.example.com>',
      raw: () => ({ status: 200, body: mailgunQueued('<20261122101532.1.ABCDEF@mg.shop.example.com>') }),
    },
    rejection: {
      reply: { status: 400, body: { message: "to parameter is not a valid address. please check documentation" } },
      text: 'Mailgun responded with 400: to parameter is not a valid address. please check documentation',
      errorId: 'unexpected_provider_error',
    },
    transient: { status: 429, body: { message: 'Too many requests' } },
  },
  {
    providerId: 'postmark',
    credentials: (baseUrl) => ({ apiKey: POSTMARK_TOKEN, from: FROM, senderName: 'Shop', baseUrl }),
    secrets: [POSTMARK_TOKEN],
    path: '/email',
    headers: () => ({ 'x-postmark-server-token': POSTMARK_TOKEN, 'content-type': 'application/json', accept: 'application/json', 'idempotency-key': undefined }),
    vendorFields: { MessageStream: 'transactional', Tag: 'orders', Metadata: { orderId: '7' } },
    parse: json,
    body: (_jobId, overridden) =>
      overridden
        ? {
            From: `"Shop Orders" <${FROM}>`,
            To: ANN.email,
            Subject: SUBJECT,
            HtmlBody: HTML,
            TextBody: TEXT,
            ReplyTo: 'support@shop.example.com',
            Cc: 'accounts@example.com',
            Bcc: 'audit@shop.example.com',
            Headers: [{ Name: 'X-Order-Id', Value: '7' }],
            Attachments: [{ Name: 'invoice.txt', Content: INVOICE, ContentType: 'text/plain' }],
            MessageStream: 'transactional',
            Tag: 'orders',
            Metadata: { orderId: '7' },
          }
        : { From: `"Shop" <${FROM}>`, To: ANN.email, Subject: SUBJECT, HtmlBody: HTML, TextBody: TEXT },
    accept: () => ({ status: 200, body: postmarkSent(ANN.email, 'b7bc2f4a-e38e-4336-af7d-e6c392c2f817') }),
    sent: { id: 'b7bc2f4a-e38e-4336-af7d-e6c392c2f817', raw: () => ({ status: 200, body: postmarkSent(ANN.email, 'b7bc2f4a-e38e-4336-af7d-e6c392c2f817') }) },
    rejection: {
      reply: { status: 422, body: postmarkError(406, 'You tried to send to recipient(s) that have been marked as inactive.') },
      text: 'Postmark responded with 422: You tried to send to recipient(s) that have been marked as inactive.',
      errorId: '406',
    },
    transient: { status: 503, body: 'Service Unavailable' },
  },
  {
    providerId: 'resend',
    credentials: (baseUrl) => ({ apiKey: RESEND_KEY, from: FROM, senderName: 'Shop', baseUrl }),
    secrets: [RESEND_KEY],
    path: '/emails',
    headers: (jobId) => ({ authorization: `Bearer ${RESEND_KEY}`, 'content-type': 'application/json', 'idempotency-key': jobId }),
    vendorFields: { tags: [{ name: 'category', value: 'orders' }] },
    parse: json,
    body: (_jobId, overridden) =>
      overridden
        ? {
            from: `"Shop Orders" <${FROM}>`,
            to: [ANN.email],
            subject: SUBJECT,
            html: HTML,
            text: TEXT,
            reply_to: 'support@shop.example.com',
            cc: ['accounts@example.com'],
            bcc: ['audit@shop.example.com'],
            headers: { 'X-Order-Id': '7' },
            attachments: [{ filename: 'invoice.txt', content: INVOICE, content_type: 'text/plain' }],
            tags: [{ name: 'category', value: 'orders' }],
          }
        : { from: `"Shop" <${FROM}>`, to: [ANN.email], subject: SUBJECT, html: HTML, text: TEXT },
    accept: () => ({ status: 200, body: { id: '49a3999c-0ce1-4ea6-ab68-afcd6dc2e794' } }),
    sent: { id: '49a3999c-0ce1-4ea6-ab68-afcd6dc2e794', raw: () => ({ status: 200, body: { id: '49a3999c-0ce1-4ea6-ab68-afcd6dc2e794' } }) },
    rejection: {
      reply: { status: 403, body: resendError(403, 'validation_error', 'The shop.example.com domain is not verified. Please, add and verify your domain.') },
      text: 'Resend responded with 403: The shop.example.com domain is not verified. Please, add and verify your domain.',
      errorId: 'validation_error',
    },
    transient: { status: 429, body: resendError(429, 'rate_limit_exceeded', 'Too many requests. You can only make 2 requests per second.') },
  },
  {
    providerId: 'mailjet',
    credentials: (baseUrl) => ({ apiKey: MAILJET_KEY, secretKey: MAILJET_SECRET, from: FROM, senderName: 'Shop', baseUrl }),
    secrets: [MAILJET_KEY, MAILJET_SECRET],
    path: '/v3.1/send',
    headers: () => ({ authorization: basic(MAILJET_KEY, MAILJET_SECRET), 'content-type': 'application/json', 'idempotency-key': undefined }),
    vendorFields: { CustomCampaign: 'orders', URLTags: 'utm_source=mailjet' },
    parse: json,
    body: (jobId, overridden) => ({
      Messages: [
        overridden
          ? {
              From: { Email: FROM, Name: 'Shop Orders' },
              To: [{ Email: ANN.email }],
              Subject: SUBJECT,
              TextPart: TEXT,
              HTMLPart: HTML,
              CustomID: jobId,
              ReplyTo: { Email: 'support@shop.example.com' },
              Cc: [{ Email: 'accounts@example.com' }],
              Bcc: [{ Email: 'audit@shop.example.com' }],
              Headers: { 'X-Order-Id': '7' },
              Attachments: [{ ContentType: 'text/plain', Filename: 'invoice.txt', Base64Content: INVOICE }],
              CustomCampaign: 'orders',
              URLTags: 'utm_source=mailjet',
            }
          : { From: { Email: FROM, Name: 'Shop' }, To: [{ Email: ANN.email }], Subject: SUBJECT, TextPart: TEXT, HTMLPart: HTML, CustomID: jobId },
      ],
    }),
    // A real Mailjet id (64-bit, beyond a JavaScript number's exact range): the exact UUID is stored instead.
    accept: (request) => ({ status: 200, body: mailjetSent({ email: ANN.email, customId: customIdOf(request), messageUuid: MAILJET_UUID, messageId: 1152921510429513470 }) }),
    sent: {
      id: MAILJET_UUID,
      raw: (jobId) => ({ status: 200, body: mailjetSent({ email: ANN.email, customId: jobId, messageUuid: MAILJET_UUID, messageId: 1152921510429513470 }) }),
    },
    rejection: {
      reply: { status: 400, body: mailjetRefused({ errorCode: 'mj-0013', message: '"ann@example.com" is an invalid email address.', relatedTo: ['To[0].Email'] }) },
      text: 'Mailjet responded with 400: "ann@example.com" is an invalid email address. (To[0].Email)',
      errorId: 'mj-0013',
    },
    transient: { status: 500, body: { ErrorIdentifier: 'D4DF574C-0C5F-45C7-BA52-7AA8E533C3DE', StatusCode: 500, ErrorMessage: 'Internal Server Error' } },
  },
  {
    providerId: 'sendinblue',
    credentials: (baseUrl) => ({ apiKey: BREVO_KEY, from: FROM, senderName: 'Shop', baseUrl }),
    secrets: [BREVO_KEY],
    path: '/v3/smtp/email',
    headers: () => ({ 'api-key': BREVO_KEY, 'content-type': 'application/json', accept: 'application/json', 'idempotency-key': undefined }),
    vendorFields: { tags: ['orders'], params: { orderId: '7' } },
    parse: json,
    body: (jobId, overridden) =>
      overridden
        ? {
            sender: { email: FROM, name: 'Shop Orders' },
            to: [{ email: ANN.email }],
            subject: SUBJECT,
            htmlContent: HTML,
            textContent: TEXT,
            replyTo: { email: 'support@shop.example.com' },
            cc: [{ email: 'accounts@example.com' }],
            bcc: [{ email: 'audit@shop.example.com' }],
            attachment: [{ content: INVOICE, name: 'invoice.txt' }],
            headers: { 'X-Order-Id': '7', 'Idempotency-Key': jobId },
            tags: ['orders'],
            params: { orderId: '7' },
          }
        : {
            sender: { email: FROM, name: 'Shop' },
            to: [{ email: ANN.email }],
            subject: SUBJECT,
            htmlContent: HTML,
            textContent: TEXT,
            headers: { 'Idempotency-Key': jobId },
          },
    accept: () => ({ status: 201, body: brevoSent('<202611221015.12345678901@smtp-relay.mailin.fr>') }),
    sent: { id: '<202611221015.12345678901@smtp-relay.mailin.fr>', raw: () => ({ status: 201, body: brevoSent('<202611221015.12345678901@smtp-relay.mailin.fr>') }) },
    rejection: {
      reply: { status: 401, body: brevoError('unauthorized', 'Key not found') },
      text: 'Brevo responded with 401: Key not found',
      errorId: 'unauthorized',
    },
    transient: { status: 502, body: '<html><body>502 Bad Gateway</body></html>' },
  },
];

describe('HTTP-API email providers against local vendor servers', () => {
  const t = useTestApp('fastify', { options: VENDOR_TEST_OPTIONS });
  let server: WebhookReceiver;

  beforeAll(async () => {
    server = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());

  /** Neither the execution log, the job error nor the message may carry these. */
  function expectNoSecrets(run: DeliveredRun, secrets: string[]): void {
    const stored = JSON.stringify({ details: run.job.details, error: run.job.error, message: run.message });
    for (const secret of secrets) expect(stored).not.toContain(secret);
  }

  /** The request headers named by `expected`, as received. */
  function headersOf(request: ReceivedRequest, expected: Record<string, unknown>): Record<string, unknown> {
    return Object.fromEntries(Object.keys(expected).map((name) => [name, request.headers[name]]));
  }

  describe.each(CASES)('$providerId', (vendor) => {
    let env: TestEnvironment;
    const path = `/${vendor.providerId}${vendor.path}`;
    const deliver = (overrides?: Record<string, unknown>): Promise<DeliveredRun> =>
      deliverThroughVendor(t, {
        providerId: vendor.providerId,
        channel: 'email',
        credentials: vendor.credentials(server.url(`/${vendor.providerId}`)),
        to: ANN,
        env,
        template: TEMPLATE,
        payload: PAYLOAD,
        ...(overrides && { overrides: { providers: { [vendor.providerId]: overrides } } }),
      });

    beforeAll(async () => {
      env = await createEnvironment(t.moduleRef, `email ${vendor.providerId}`);
    });

    it('sends the documented request (HTML and text parts, overrides mapped) and stores the vendor id', async () => {
      server.respond(path, vendor.accept);
      const run = await deliver({ ...COMMON_OVERRIDES, ...vendor.vendorFields });
      const jobId = run.job.id;

      const requests = server.requestsTo(path);
      expect(requests).toHaveLength(1);
      const [request] = requests;
      expect(request.method).toBe('POST');
      expect(headersOf(request, vendor.headers(jobId))).toEqual(vendor.headers(jobId));
      expect(await vendor.parse(request)).toEqual(vendor.body(jobId, true));

      expect(run.job).toMatchObject({ status: 'completed', providerId: vendor.providerId, error: null });
      expect(logLines(run.job)).toEqual(deliveredLog(vendor.providerId));
      expect(run.message).toMatchObject({
        status: 'sent',
        provider_id: vendor.providerId,
        email: ANN.email,
        subject: SUBJECT,
        content: HTML,
        provider_message_id: vendor.sent.id,
        error_text: null,
      });
      expect(run.job.details.find((d) => d.detail === 'Message sent')?.raw).toEqual(vendor.sent.raw(jobId));
      expectNoSecrets(run, vendor.secrets);
    });

    it('fails without retrying on a permanent error, keeping the vendor answer (no secret stored)', async () => {
      server.respond(path, vendor.rejection.reply);
      const run = await deliver();

      expect(server.requestsTo(path)).toHaveLength(1);
      expect(run.job.status).toBe('failed');
      expect(run.message).toMatchObject({
        status: 'error',
        provider_id: vendor.providerId,
        error_id: vendor.rejection.errorId,
        error_text: vendor.rejection.text,
        provider_message_id: null,
      });
      const failed = run.job.details.at(-1);
      expect(failed).toMatchObject({ detail: 'Unexpected provider error', status: 'Failed', providerId: vendor.providerId });
      expect(failed?.raw).toEqual({ error: vendor.rejection.text, response: { status: vendor.rejection.reply.status, body: vendor.rejection.reply.body } });
      expect(retryLines(run.job)).toEqual([]);
      expectNoSecrets(run, vendor.secrets);
    });

    it('retries a transient error through the queue with the same request, then succeeds', async () => {
      server.respond(path, (request, index) => (index === 0 ? vendor.transient : vendor.accept(request)));
      const run = await deliver();
      const jobId = run.job.id;

      const requests = server.requestsTo(path);
      expect(requests).toHaveLength(2);
      for (const request of requests) {
        expect(headersOf(request, vendor.headers(jobId))).toEqual(vendor.headers(jobId));
        expect(await vendor.parse(request)).toEqual(vendor.body(jobId, false));
      }
      expect(run.job.status).toBe('completed');
      expect(run.message).toMatchObject({ status: 'sent', provider_message_id: vendor.sent.id, error_text: null });
      const retried = run.job.details.findIndex((d) => d.detail === 'Provider error, the send will be retried');
      expect(run.job.details[retried]).toMatchObject({ status: 'Warning', isRetry: false });
      expect(run.job.details.slice(retried + 1).every((d) => d.isRetry)).toBe(true);
      expect(retryLines(run.job).at(-1)).toMatchObject({ detail: 'Message sent', status: 'Success', raw: vendor.sent.raw(jobId) });
      expectNoSecrets(run, vendor.secrets);
    });
  });

  describe('vendor specifics', () => {
    /** One delivery through the `CASES` entry of `providerId`, in a fresh environment. */
    const deliverOnce = async (providerId: string, overrides?: Record<string, unknown>): Promise<DeliveredRun> => {
      const vendor = CASES.find((c) => c.providerId === providerId);
      if (!vendor) throw new Error(`no case for ${providerId}`);
      return deliverThroughVendor(t, {
        providerId,
        channel: 'email',
        credentials: vendor.credentials(server.url(`/${providerId}`)),
        to: ANN,
        template: TEMPLATE,
        payload: PAYLOAD,
        ...(overrides && { overrides: { providers: { [providerId]: overrides } } }),
      });
    };

    it('mailjet: stores To[0].MessageID when it is exact, and fails a 200 whose message has Status "error" without retrying', async () => {
      server.respond('/mailjet/v3.1/send', (request, index) =>
        index === 0
          ? { status: 200, body: mailjetSent({ email: ANN.email, customId: customIdOf(request), messageUuid: MAILJET_UUID, messageId: 70368744177664 }) }
          : { status: 200, body: mailjetRefused({ errorCode: 'send-0003', message: 'At least "HTMLPart", "TextPart" or "TemplateID" must be provided.', relatedTo: ['HTMLPart', 'TextPart'] }) },
      );
      const sent = await deliverOnce('mailjet');
      expect(sent.message).toMatchObject({ status: 'sent', provider_message_id: '70368744177664' });

      const refused = await deliverOnce('mailjet');
      expect(server.requestsTo('/mailjet/v3.1/send')).toHaveLength(2);
      expect(refused.job.status).toBe('failed');
      expect(refused.message).toMatchObject({
        status: 'error',
        error_id: 'send-0003',
        error_text: 'Mailjet refused the message: At least "HTMLPart", "TextPart" or "TemplateID" must be provided. (HTMLPart, TextPart)',
      });
      expect(retryLines(refused.job)).toEqual([]);
    });

    it('resend: a 409 concurrent_idempotent_requests (the same job still in flight) is retried with the same Idempotency-Key', async () => {
      server.respond('/resend/emails', (_request, index) =>
        index === 0
          ? { status: 409, body: resendError(409, 'concurrent_idempotent_requests', 'Same idempotency key used while original request is still in progress.') }
          : { status: 200, body: { id: 'a52ac168-338f-4fbc-9354-e6049b193d99' } },
      );
      const run = await deliverOnce('resend');
      const requests = server.requestsTo('/resend/emails');
      expect(requests.map((request) => request.headers['idempotency-key'])).toEqual([run.job.id, run.job.id]);
      expect(run.job.status).toBe('completed');
      expect(run.message).toMatchObject({ status: 'sent', provider_message_id: 'a52ac168-338f-4fbc-9354-e6049b193d99' });
      expect(retryLines(run.job).at(-1)).toMatchObject({ detail: 'Message sent', status: 'Success' });
    });

    it('overrides of the wrong shape fail the send permanently, before any request', async () => {
      const run = await deliverOnce('postmark', { cc: [42], attachments: 'invoice.pdf' });
      expect(server.requestsTo('/postmark/email')).toHaveLength(0);
      expect(run.job.status).toBe('failed');
      expect(run.message).toMatchObject({
        status: 'error',
        error_id: 'invalid_overrides',
        error_text: 'Invalid email overrides: cc must be an email address or a list of them',
      });
      expect(retryLines(run.job)).toEqual([]);
    });
  });
});
