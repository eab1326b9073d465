import { createServer, type Server, type Socket } from 'node:net';
import { Logger } from '@nestjs/common';
import type { DeliveryMessage, IntegrationCredentials } from '../../lib';
import { awsDeliveryError } from '../../lib/providers/aws-clients';
import { NodemailerProvider, smtpDeliveryError } from '../../lib/providers/email/nodemailer.provider';
import { SesProvider } from '../../lib/providers/email/ses.provider';
import { SnsProvider } from '../../lib/providers/sms/sns.provider';
import { useTestApp } from '../fixtures/app';
import { deliveredLog, logLines } from '../fixtures/delivery-run';
import { createEnvironment, type TestEnvironment } from '../fixtures/factories';
import { type DeliveredRun, deliverThroughVendor, retryLines, type VendorDelivery, VENDOR_TEST_OPTIONS } from '../fixtures/vendor-delivery';
import { type AwsReceivedRequest, AwsTestServer } from '../fixtures/vendors/aws-server';
import { SmtpTestServer } from '../fixtures/vendors/smtp-server';

/**
 * The providers built on a vendor library, end to end: trigger → worker → provider → a local server.
 * - `nodemailer` against a real SMTP server (smtp-server) that requires AUTH, offers STARTTLS and
 *   parses what it receives with mailparser;
 * - `ses` (@aws-sdk/client-sesv2) and `sns` (@aws-sdk/client-sns) against a local AWS endpoint that
 *   verifies each request's Signature V4 and answers in the service's wire protocol (REST-JSON for
 *   SES v2, the query protocol with XML answers for SNS).
 * For each: the exact request, success (the vendor id on the message, its answer in `Message sent`),
 * a permanent error (no retry, the answer in the failed detail, no secret stored), and a transient
 * error retried through the queue to success.
 */

const TEMPLATE = {
  subject: 'Order {{ payload.orderId }} for {{ subscriber.firstName }}',
  content: '<p>Hi {{ subscriber.firstName }}, your <a href="https://shop.example.com/orders/{{ payload.orderId }}">order</a> shipped.</p>',
};
const PAYLOAD = { orderId: '7' };
const ANN = { subscriberId: 'ann', firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com', phone: '+15550001111' };
const SUBJECT = 'Order 7 for Ann';
const HTML = '<p>Hi Ann, your <a href="https://shop.example.com/orders/7">order</a> shipped.</p>';
const TEXT = 'Hi Ann, your order [https://shop.example.com/orders/7] shipped.';
const FROM = 'no-reply@shop.example.com';
const INVOICE_TEXT = 'Invoice #7: 2 items';
const INVOICE = Buffer.from(INVOICE_TEXT).toString('base64');
const SMS_TEMPLATE = { content: 'Code {{ payload.code }} for {{ subscriber.firstName }}' };

const SMTP_USER = 'mailer@shop.example.com';
const SMTP_PASSWORD = 'sMtP-pAsSwOrD-0123456789';
const AWS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

describe('providers built on a vendor library: nodemailer (SMTP), Amazon SES and SNS (AWS SDK)', () => {
  const t = useTestApp('fastify', { options: VENDOR_TEST_OPTIONS });
  let smtp: SmtpTestServer;
  let aws: AwsTestServer;

  beforeAll(async () => {
    smtp = await SmtpTestServer.start({ users: { [SMTP_USER]: SMTP_PASSWORD } });
    aws = await AwsTestServer.start({ [AWS_KEY_ID]: AWS_SECRET });
  });
  afterAll(async () => {
    await smtp?.close();
    await aws?.close();
  });
  beforeEach(() => {
    smtp.reset();
    aws.reset();
  });

  /** Neither the execution log, the job error nor the message may carry these. */
  function expectNoSecrets(run: DeliveredRun, secrets: string[]): void {
    const stored = JSON.stringify({ details: run.job.details, error: run.job.error, message: run.message });
    for (const secret of secrets) expect(stored).not.toContain(secret);
  }

  /** The queue retried the job once: a warning line, then only `isRetry` lines ending in `Message sent`. */
  function expectRetriedToSuccess(run: DeliveredRun, sentRaw: unknown): void {
    expect(run.job.status).toBe('completed');
    const retried = run.job.details.findIndex((d) => d.detail === 'Provider error, the send will be retried');
    expect(run.job.details[retried]).toMatchObject({ status: 'Warning', isRetry: false });
    expect(run.job.details.slice(retried + 1).every((d) => d.isRetry)).toBe(true);
    expect(retryLines(run.job).at(-1)).toMatchObject({ detail: 'Message sent', status: 'Success', raw: sentRaw });
  }

  /** The job failed at once with a permanent error, recorded on the message and in the last log line. */
  function expectFailedWithoutRetry(run: DeliveredRun, providerId: string, errorId: string, text: string, response: unknown): void {
    expect(run.job.status).toBe('failed');
    expect(run.message).toMatchObject({ status: 'error', provider_id: providerId, error_id: errorId, error_text: text, provider_message_id: null });
    const failed = run.job.details.at(-1);
    expect(failed).toMatchObject({ detail: 'Unexpected provider error', status: 'Failed', providerId });
    expect(failed?.raw).toEqual({ error: text, response });
    expect(retryLines(run.job)).toEqual([]);
  }

  describe('nodemailer (SMTP)', () => {
    const credentials = (extra: IntegrationCredentials = {}): IntegrationCredentials => ({
      host: '127.0.0.1',
      port: String(smtp.port),
      user: SMTP_USER,
      password: SMTP_PASSWORD,
      from: FROM,
      senderName: 'Shop',
      ...extra,
    });
    const envs = new Map<string, TestEnvironment>();
    /** One environment (so one integration) per credentials variant. */
    const deliver = async (variant: string, creds: IntegrationCredentials, overrides?: Record<string, unknown>): Promise<DeliveredRun> => {
      const env = envs.get(variant) ?? (await createEnvironment(t.moduleRef, `smtp ${variant}`));
      envs.set(variant, env);
      return deliverThroughVendor(t, {
        providerId: 'nodemailer',
        channel: 'email',
        credentials: creds,
        to: ANN,
        env,
        template: TEMPLATE,
        payload: PAYLOAD,
        ...(overrides && { overrides: { providers: { nodemailer: overrides } } }),
      });
    };
    const plain = (): Promise<DeliveredRun> => deliver('plain', credentials({ ignoreTls: true }));

    it('authenticates, upgrades with STARTTLS and sends the HTML + text message with a Message-ID from the job id', async () => {
      const run = await deliver('starttls', credentials({ requireTls: true, tlsOptions: { rejectUnauthorized: false } }), {
        senderName: 'Shop Orders',
        replyTo: 'support@shop.example.com',
        cc: 'accounts@example.com',
        headers: { 'X-Order-Id': '7' },
        attachments: [{ name: 'invoice.txt', file: INVOICE, mime: 'text/plain' }],
        priority: 'high',
      });
      const messageId = `<${run.job.id}@shop.example.com>`;

      expect(smtp.authAttempts).toEqual([{ method: 'PLAIN', username: SMTP_USER, password: SMTP_PASSWORD, accepted: true }]);
      expect(smtp.transactions).toHaveLength(1);
      const [mail] = smtp.transactions;
      expect(mail).toMatchObject({ outcome: 'accepted', secure: true, user: SMTP_USER, mailFrom: FROM, rcptTo: [ANN.email, 'accounts@example.com'] });
      const parsed = mail.parsed!;
      expect(parsed.from?.value).toEqual([{ address: FROM, name: 'Shop Orders' }]);
      expect(parsed.to).toMatchObject({ value: [{ address: ANN.email, name: '' }] });
      expect(parsed.cc).toMatchObject({ value: [{ address: 'accounts@example.com', name: '' }] });
      expect(parsed.replyTo?.value).toEqual([{ address: 'support@shop.example.com', name: '' }]);
      expect(parsed.subject).toBe(SUBJECT);
      expect(parsed.html).toBe(HTML);
      expect(parsed.text).toBe(TEXT);
      expect(parsed.messageId).toBe(messageId);
      // nodemailer's `priority: 'high'` (a vendor field of the overrides) as headers.
      expect(mail.raw!.toString('utf8')).toMatch(/^X-Priority: 1 \(Highest\)\r?$/m);
      expect(mail.raw!.toString('utf8')).toMatch(/^Importance: High\r?$/m);
      expect(parsed.headers.get('x-order-id')).toBe('7');
      expect(parsed.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content.toString('utf8') }))).toEqual([
        { filename: 'invoice.txt', contentType: 'text/plain', content: INVOICE_TEXT },
      ]);

      expect(run.job).toMatchObject({ status: 'completed', providerId: 'nodemailer', error: null });
      expect(logLines(run.job)).toEqual(deliveredLog('nodemailer'));
      expect(run.message).toMatchObject({ status: 'sent', provider_id: 'nodemailer', email: ANN.email, subject: SUBJECT, content: HTML, provider_message_id: messageId });
      expect(run.job.details.find((d) => d.detail === 'Message sent')?.raw).toEqual({
        messageId,
        response: expect.stringMatching(/^250 /),
        accepted: [ANN.email, 'accounts@example.com'],
        rejected: [],
      });
      expectNoSecrets(run, [SMTP_PASSWORD]);
    });

    it('sends in plain text without STARTTLS when ignoreTls is set, reusing the pooled connection across sends', async () => {
      const first = await plain();
      const second = await plain();
      expect([first.job.status, second.job.status]).toEqual(['completed', 'completed']);
      expect(smtp.transactions.map((m) => ({ outcome: m.outcome, secure: m.secure, messageId: m.parsed?.messageId }))).toEqual([
        { outcome: 'accepted', secure: false, messageId: `<${first.job.id}@shop.example.com>` },
        { outcome: 'accepted', secure: false, messageId: `<${second.job.id}@shop.example.com>` },
      ]);
      // One connection, authenticated once: the transport of these credentials is pooled, not rebuilt per send.
      expect(new Set(smtp.transactions.map((m) => m.sessionId)).size).toBe(1);
      expect(smtp.authAttempts).toHaveLength(1);
    });

    it.each([
      { stage: 'RCPT TO', reject: (s: SmtpTestServer) => s.rejectRcpt(() => ({ code: 550, message: '5.1.1 <ann@example.com>: Recipient address rejected: User unknown' })), outcome: 'rcpt-rejected', code: 'EENVELOPE' },
      { stage: 'DATA', reject: (s: SmtpTestServer) => s.rejectData(() => ({ code: 550, message: '5.7.1 Message rejected as spam' })), outcome: 'data-rejected', code: 'EMESSAGE' },
    ])('fails without retrying when the server refuses $stage with 550', async ({ stage, reject, outcome, code }) => {
      reject(smtp);
      const run = await plain();

      expect(smtp.transactions).toHaveLength(1);
      expect(smtp.transactions[0].outcome).toBe(outcome);
      const reply = stage === 'DATA' ? '550 5.7.1 Message rejected as spam' : '550 5.1.1 <ann@example.com>: Recipient address rejected: User unknown';
      const text = `SMTP server responded with 550 to ${stage}: ${reply}`;
      expectFailedWithoutRetry(run, 'nodemailer', '550', text, {
        code,
        command: stage,
        responseCode: 550,
        response: reply,
        message: expect.any(String),
      });
      expectNoSecrets(run, [SMTP_PASSWORD]);
    });

    it('fails without retrying when the server refuses the credentials (535), never storing the password', async () => {
      const wrong = 'wrong-pAsSwOrD-9876543210';
      const run = await deliver('bad password', credentials({ ignoreTls: true, password: wrong }));

      expect(smtp.authAttempts).toEqual([{ method: 'PLAIN', username: SMTP_USER, password: wrong, accepted: false }]);
      expect(smtp.transactions).toEqual([]);
      const text = 'SMTP server responded with 535 to AUTH PLAIN: 535 5.7.8 Authentication credentials invalid';
      expectFailedWithoutRetry(run, 'nodemailer', '535', text, {
        code: 'EAUTH',
        command: 'AUTH PLAIN',
        responseCode: 535,
        response: '535 5.7.8 Authentication credentials invalid',
        message: expect.any(String),
      });
      expectNoSecrets(run, [wrong, SMTP_PASSWORD]);
    });

    it('retries a 451 after DATA through the queue: the resend carries the same Message-ID', async () => {
      smtp.rejectData((index) => (index === 0 ? { code: 451, message: '4.3.0 Temporary local problem, try again later' } : undefined));
      const run = await plain();
      const messageId = `<${run.job.id}@shop.example.com>`;

      expect(smtp.transactions.map((m) => ({ outcome: m.outcome, replyCode: m.replyCode, messageId: m.parsed?.messageId, subject: m.parsed?.subject }))).toEqual([
        { outcome: 'data-rejected', replyCode: 451, messageId, subject: SUBJECT },
        { outcome: 'accepted', replyCode: 250, messageId, subject: SUBJECT },
      ]);
      const warning = run.job.details.find((d) => d.detail === 'Provider error, the send will be retried');
      expect(JSON.stringify(warning?.raw)).toContain('451');
      expectRetriedToSuccess(run, { messageId, response: expect.stringMatching(/^250 /), accepted: [ANN.email], rejected: [] });
      expect(run.message).toMatchObject({ status: 'sent', provider_message_id: messageId, error_text: null });
      expectNoSecrets(run, [SMTP_PASSWORD]);
    });
  });

  describe('AWS (SES v2 and SNS through the AWS SDK)', () => {
    const awsCredentials = (extra: IntegrationCredentials = {}): IntegrationCredentials => ({
      apiKey: AWS_KEY_ID,
      secretKey: AWS_SECRET,
      region: 'eu-west-1',
      baseUrl: aws.url,
      ...extra,
    });
    const envs = new Map<string, TestEnvironment>();
    const deliver = async (variant: string, delivery: Omit<VendorDelivery, 'env'>): Promise<DeliveredRun> => {
      const env = envs.get(variant) ?? (await createEnvironment(t.moduleRef, `aws ${variant}`));
      envs.set(variant, env);
      return deliverThroughVendor(t, { ...delivery, env });
    };

    /** The SigV4 checks every AWS request must pass. */
    function expectSigned(request: AwsReceivedRequest, service: 'ses' | 'sns', contentType: string): void {
      expect(request.signature).toEqual({
        accessKeyId: AWS_KEY_ID,
        date: expect.stringMatching(/^\d{8}$/),
        region: 'eu-west-1',
        service,
        signedHeaders: expect.arrayContaining(['content-type', 'host', 'x-amz-content-sha256', 'x-amz-date']),
        valid: true,
      });
      expect(request.headers.authorization).toMatch(
        new RegExp(`^AWS4-HMAC-SHA256 Credential=${AWS_KEY_ID}/\\d{8}/eu-west-1/${service}/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$`),
      );
      expect(request.headers['content-type']).toBe(contentType);
      // The SDK's own retries are off: every attempt is the queue's.
      expect(request.headers['amz-sdk-request']).toBe('attempt=1; max=1');
    }

    describe('ses', () => {
      const deliverSes = (variant = 'ses', overrides?: Record<string, unknown>, extra?: IntegrationCredentials): Promise<DeliveredRun> =>
        deliver(variant, {
          providerId: 'ses',
          channel: 'email',
          credentials: awsCredentials({ from: FROM, senderName: 'Shop', ...extra }),
          to: ANN,
          template: TEMPLATE,
          payload: PAYLOAD,
          ...(overrides && { overrides: { providers: { ses: overrides } } }),
        });
      const simpleBody = {
        FromEmailAddress: `"Shop" <${FROM}>`,
        Destination: { ToAddresses: [ANN.email] },
        Content: {
          Simple: {
            Subject: { Data: SUBJECT, Charset: 'UTF-8' },
            Body: { Html: { Data: HTML, Charset: 'UTF-8' }, Text: { Data: TEXT, Charset: 'UTF-8' } },
          },
        },
      };

      it('sends SendEmail (POST /v2/email/outbound-emails, SigV4) with the overrides mapped, and stores the MessageId', async () => {
        aws.respond('ses', { messageId: '010201234567abcd-0123abcd-4567-89ef-0123-456789abcdef-000000' });
        const run = await deliverSes('ses', {
          senderName: 'Shöp Orders',
          replyTo: 'support@shop.example.com',
          cc: 'accounts@example.com',
          bcc: ['audit@shop.example.com'],
          headers: { 'X-Order-Id': '7' },
          attachments: [{ name: 'invoice.txt', file: INVOICE, mime: 'text/plain' }],
          ConfigurationSetName: 'transactional',
          EmailTags: [{ Name: 'flow', Value: 'orders' }],
        });

        expect(aws.requests).toHaveLength(1);
        const [request] = aws.requests;
        expect(request.method).toBe('POST');
        expect(request.path).toBe('/v2/email/outbound-emails');
        expectSigned(request, 'ses', 'application/json');
        expect(request.json).toEqual({
          FromEmailAddress: `=?UTF-8?B?${Buffer.from('Shöp Orders').toString('base64')}?= <${FROM}>`,
          Destination: { ToAddresses: [ANN.email], CcAddresses: ['accounts@example.com'], BccAddresses: ['audit@shop.example.com'] },
          ReplyToAddresses: ['support@shop.example.com'],
          Content: {
            Simple: {
              Subject: { Data: SUBJECT, Charset: 'UTF-8' },
              Body: { Html: { Data: HTML, Charset: 'UTF-8' }, Text: { Data: TEXT, Charset: 'UTF-8' } },
              Headers: [{ Name: 'X-Order-Id', Value: '7' }],
              Attachments: [{ FileName: 'invoice.txt', RawContent: INVOICE, ContentType: 'text/plain' }],
            },
          },
          ConfigurationSetName: 'transactional',
          EmailTags: [{ Name: 'flow', Value: 'orders' }],
        });

        expect(run.job).toMatchObject({ status: 'completed', providerId: 'ses', error: null });
        expect(logLines(run.job)).toEqual(deliveredLog('ses'));
        expect(run.message).toMatchObject({ status: 'sent', provider_id: 'ses', email: ANN.email, subject: SUBJECT, provider_message_id: '010201234567abcd-0123abcd-4567-89ef-0123-456789abcdef-000000' });
        expect(run.job.details.find((d) => d.detail === 'Message sent')?.raw).toEqual({
          status: 200,
          body: { MessageId: '010201234567abcd-0123abcd-4567-89ef-0123-456789abcdef-000000' },
          requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        });
        expectNoSecrets(run, [AWS_SECRET]);
      });

      it('fails without retrying on 400 MessageRejected, keeping the AWS error', async () => {
        const text = 'Email address is not verified. The following identities failed the check in region EU-WEST-1: no-reply@shop.example.com';
        aws.respond('ses', { status: 400, code: 'MessageRejected', message: text });
        const run = await deliverSes();

        expect(aws.requests).toHaveLength(1);
        expect(aws.requests[0].json).toEqual(simpleBody);
        expectFailedWithoutRetry(run, 'ses', 'MessageRejected', `Amazon SES responded with 400 MessageRejected: ${text}`, {
          status: 400,
          code: 'MessageRejected',
          message: text,
          fault: 'client',
          requestId: expect.any(String),
        });
        expectNoSecrets(run, [AWS_SECRET]);
      });

      it('fails without retrying when the signature does not match (a wrong secret key)', async () => {
        const wrongSecret = 'wrongSecretKey0123456789abcdefghijklmnop';
        const run = await deliverSes('ses wrong secret', undefined, { secretKey: wrongSecret });

        expect(aws.requests).toHaveLength(1);
        expect(aws.requests[0].signature).toMatchObject({ accessKeyId: AWS_KEY_ID, service: 'ses', valid: false, problem: 'signature mismatch' });
        expect(run.job.status).toBe('failed');
        expect(run.message).toMatchObject({ status: 'error', error_id: 'SignatureDoesNotMatch', error_text: expect.stringMatching(/^Amazon SES responded with 403 SignatureDoesNotMatch: /) });
        expect(retryLines(run.job)).toEqual([]);
        expectNoSecrets(run, [wrongSecret, AWS_SECRET]);
      });

      it('retries a 500 InternalFailure through the queue with the same request, then succeeds', async () => {
        aws.respond('ses', (_request, index) => (index === 0 ? { status: 500, code: 'InternalFailure', message: 'The request processing has failed because of an unknown error.' } : { messageId: 'ses-msg-2' }));
        const run = await deliverSes();

        expect(aws.requests).toHaveLength(2);
        for (const request of aws.requests) {
          expectSigned(request, 'ses', 'application/json');
          expect(request.json).toEqual(simpleBody);
        }
        const warning = run.job.details.find((d) => d.detail === 'Provider error, the send will be retried');
        expect(warning?.raw).toMatchObject({ response: { status: 500, code: 'InternalFailure' } });
        expectRetriedToSuccess(run, { status: 200, body: { MessageId: 'ses-msg-2' }, requestId: expect.any(String) });
        expect(run.message).toMatchObject({ status: 'sent', provider_message_id: 'ses-msg-2', error_text: null });
        expectNoSecrets(run, [AWS_SECRET]);
      });
    });

    describe('sns', () => {
      const deliverSns = (overrides?: Record<string, unknown>): Promise<DeliveredRun> =>
        deliver('sns', {
          providerId: 'sns',
          channel: 'sms',
          credentials: awsCredentials(),
          to: ANN,
          template: SMS_TEMPLATE,
          payload: { code: 4821 },
          ...(overrides && { overrides: { providers: { sns: overrides } } }),
        });
      const publishForm = { Action: 'Publish', Version: '2010-03-31', PhoneNumber: ANN.phone, Message: 'Code 4821 for Ann' };

      it('publishes to the phone number (query protocol, SigV4) with the overrides merged, and stores the MessageId', async () => {
        aws.respond('sns', { messageId: '567910cd-659e-55d4-8ccb-5aaf14679dc0' });
        const run = await deliverSns({
          MessageAttributes: {
            'AWS.SNS.SMS.SenderID': { DataType: 'String', StringValue: 'SHOP' },
            'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' },
          },
        });

        expect(aws.requests).toHaveLength(1);
        const [request] = aws.requests;
        expect(request.method).toBe('POST');
        expect(request.path).toBe('/');
        expectSigned(request, 'sns', 'application/x-www-form-urlencoded');
        const form = { ...request.form };
        const attributes = Object.keys(form).filter((key) => key.startsWith('MessageAttributes.'));
        expect(Object.fromEntries(Object.entries(form).filter(([key]) => !attributes.includes(key)))).toEqual(publishForm);
        // The query protocol flattens the map into numbered entries (in the overrides' stored key order).
        expect(attributes).toHaveLength(6);
        const entries = [1, 2].map((n) => [form[`MessageAttributes.entry.${n}.Name`], { DataType: form[`MessageAttributes.entry.${n}.Value.DataType`], StringValue: form[`MessageAttributes.entry.${n}.Value.StringValue`] }]);
        expect(Object.fromEntries(entries)).toEqual({
          'AWS.SNS.SMS.SenderID': { DataType: 'String', StringValue: 'SHOP' },
          'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: 'Transactional' },
        });

        expect(run.job).toMatchObject({ status: 'completed', providerId: 'sns', error: null });
        expect(logLines(run.job)).toEqual(deliveredLog('sns'));
        expect(run.message).toMatchObject({ status: 'sent', provider_id: 'sns', phone: ANN.phone, content: 'Code 4821 for Ann', provider_message_id: '567910cd-659e-55d4-8ccb-5aaf14679dc0' });
        expect(run.job.details.find((d) => d.detail === 'Message sent')?.raw).toEqual({
          status: 200,
          body: { MessageId: '567910cd-659e-55d4-8ccb-5aaf14679dc0' },
          requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        });
        expectNoSecrets(run, [AWS_SECRET]);
      });

      it('fails without retrying on 400 InvalidParameter, keeping the AWS error', async () => {
        const text = 'Invalid parameter: PhoneNumber Reason: +15550001111 is not valid to publish to';
        aws.respond('sns', { status: 400, code: 'InvalidParameter', message: text });
        const run = await deliverSns();

        expect(aws.requests).toHaveLength(1);
        expect(aws.requests[0].form).toEqual(publishForm);
        expectFailedWithoutRetry(run, 'sns', 'InvalidParameter', `Amazon SNS responded with 400 InvalidParameter: ${text}`, {
          status: 400,
          code: 'InvalidParameter',
          message: text,
          fault: 'client',
          requestId: expect.any(String),
        });
        expectNoSecrets(run, [AWS_SECRET]);
      });

      it('retries a 400 Throttling through the queue with the same request, then succeeds', async () => {
        aws.respond('sns', (_request, index) => (index === 0 ? { status: 400, code: 'Throttling', message: 'Rate exceeded' } : { messageId: 'sns-msg-2' }));
        const run = await deliverSns();

        expect(aws.requests).toHaveLength(2);
        for (const request of aws.requests) {
          expectSigned(request, 'sns', 'application/x-www-form-urlencoded');
          expect(request.form).toEqual(publishForm);
        }
        const warning = run.job.details.find((d) => d.detail === 'Provider error, the send will be retried');
        expect(warning?.raw).toMatchObject({ response: { status: 400, code: 'Throttling' } });
        expectRetriedToSuccess(run, { status: 200, body: { MessageId: 'sns-msg-2' }, requestId: expect.any(String) });
        expect(run.message).toMatchObject({ status: 'sent', provider_message_id: 'sns-msg-2', error_text: null });
        expectNoSecrets(run, [AWS_SECRET]);
      });
    });
  });
});

/**
 * The failure rules without the pipeline: a provider called directly against a port nobody listens on
 * and a server that never answers (both transient), and the classification of SMTP replies and AWS
 * SDK errors.
 */
describe('providers built on a vendor library: network failures and error classification', () => {
  let silent: Server;
  const sockets = new Set<Socket>();
  let silentPort: number;
  let closedPort: number;

  beforeAll(async () => {
    // Providers built outside the app log their failures at debug level to Nest's default logger.
    Logger.overrideLogger(['error', 'warn']);
    // Accepts connections and never says a word: no SMTP greeting, no HTTP answer.
    silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    silentPort = await listen(silent);
    const closed = createServer();
    closedPort = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  const message = (channel: 'email' | 'sms'): DeliveryMessage => ({
    channel,
    jobId: '0b7e9a52-8a8c-4f0e-9d52-6a1f3c2b9e10',
    transactionId: 'txn-1',
    environmentId: 'env-1',
    workflowIdentifier: 'wf',
    to: { subscriberId: 'ann', email: 'ann@example.com', phone: '+15550001111' },
    subject: 'Hello',
    content: '<p>Hi</p>',
    payload: {},
    overrides: {},
    timeoutMs: 300,
    attempt: 0,
  });
  const smtpCredentials = (port: number): IntegrationCredentials => ({ host: '127.0.0.1', port: String(port), from: FROM, ignoreTls: true });
  const awsCredentials = (port: number): IntegrationCredentials => ({ apiKey: AWS_KEY_ID, secretKey: AWS_SECRET, region: 'eu-west-1', from: FROM, baseUrl: `http://127.0.0.1:${port}` });

  async function failure(send: () => Promise<unknown>): Promise<{ message: string; transient: boolean; code?: string }> {
    try {
      await send();
    } catch (error) {
      const { message, transient, code } = error as { message: string; transient: boolean; code?: string };
      return { message, transient, code };
    }
    throw new Error('the send succeeded');
  }

  it('nodemailer: a refused connection and a server that never greets are transient', async () => {
    const provider = new NodemailerProvider();
    try {
      expect(await failure(() => provider.send(message('email'), smtpCredentials(closedPort)))).toMatchObject({ transient: true, message: expect.stringMatching(/^SMTP connection failed: .*ECONNREFUSED/) });
      // The greeting timeout and the whole-send budget are both the message's timeoutMs: either may fire first.
      expect(await failure(() => provider.send(message('email'), smtpCredentials(silentPort)))).toEqual({
        transient: true,
        code: 'timeout',
        message: expect.stringMatching(/^SMTP server did not answer within 300 ms(: Greeting never received)?$/),
      });
    } finally {
      provider.onModuleDestroy();
    }
  });

  it.each([
    ['ses', () => new SesProvider(), 'email', 'Amazon SES'],
    ['sns', () => new SnsProvider(), 'sms', 'Amazon SNS'],
  ] as const)('%s: a refused connection and an endpoint that never answers are transient', async (_id, create, channel, vendor) => {
    const provider = create();
    try {
      expect(await failure(() => provider.send(message(channel), awsCredentials(closedPort)))).toMatchObject({ transient: true, code: 'network_error', message: expect.stringContaining(`${vendor} request failed`) });
      expect(await failure(() => provider.send(message(channel), awsCredentials(silentPort)))).toEqual({ transient: true, code: 'timeout', message: `${vendor} did not answer within 300 ms` });
    } finally {
      provider.onModuleDestroy();
    }
  });

  it.each([
    [{ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 452, response: '452 4.2.2 Mailbox full' }, true, '452'],
    [{ code: 'ECONNECTION', command: 'CONN', responseCode: 421, response: '421 4.7.0 Try again later' }, true, '421'],
    [{ code: 'EMESSAGE', command: 'DATA', responseCode: 450, response: '450 4.2.0 Mailbox unavailable' }, true, '450'],
    [{ code: 'EPROTOCOL', command: 'MAIL FROM', responseCode: 503, response: '503 5.5.1 Bad sequence of commands' }, true, '503'],
    [{ code: 'EMESSAGE', command: 'DATA', responseCode: 554, response: '554 5.7.1 Relay access denied' }, false, '554'],
    [{ code: 'ECONNECTION', message: 'Connection closed unexpectedly' }, true, 'ECONNECTION'],
    [{ code: 'ETIMEDOUT', message: 'Greeting never received' }, true, 'timeout'],
    [{ code: 'ESOCKET', message: 'connect ECONNREFUSED 127.0.0.1:25' }, true, 'ESOCKET'],
    [{ code: 'ETLS', message: 'self-signed certificate' }, false, 'ETLS'],
    [{ code: 'EAUTH', command: 'API', message: 'Missing credentials for "PLAIN"' }, false, 'EAUTH'],
  ])('SMTP %j → transient: %s, code %s', (error, transient, code) => {
    expect(smtpDeliveryError(Object.assign(new Error(String((error as { message?: string }).message ?? 'failed')), error), false, 1000)).toMatchObject({ transient, code });
  });

  const awsError = (name: string, status: number | undefined, fault?: string): Error =>
    Object.assign(new Error(`${name} happened`), { name, ...(fault && { $fault: fault }), $metadata: status === undefined ? { attempts: 1 } : { httpStatusCode: status, requestId: 'req-1' } });
  it.each([
    [awsError('TooManyRequestsException', 429, 'client'), true, 'TooManyRequestsException'],
    [awsError('LimitExceededException', 400, 'client'), true, 'LimitExceededException'],
    [awsError('ThrottledException', 429, 'client'), true, 'ThrottledException'],
    [awsError('ServiceUnavailable', 503), true, 'ServiceUnavailable'],
    [awsError('ConcurrentModificationException', 500, 'server'), true, 'ConcurrentModificationException'],
    [awsError('BadRequestException', 400, 'client'), false, 'BadRequestException'],
    [awsError('SendingPausedException', 400, 'client'), false, 'SendingPausedException'],
    [awsError('OptedOutException', 400, 'client'), false, 'OptedOutException'],
    [awsError('TimeoutError', undefined), true, 'timeout'],
    [Object.assign(new Error('connect ECONNRESET'), { code: 'ECONNRESET' }), true, 'network_error'],
    [new Error('Region is missing'), false, 'Error'],
  ])('AWS %p → transient: %s, code %s', (error, transient, code) => {
    expect(awsDeliveryError('Amazon SES', error, 1000)).toMatchObject({ transient, code });
  });
});

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
}
