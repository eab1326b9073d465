import type { Type } from '@nestjs/common';
import type { DeliveryProvider } from '../delivery-provider';
import { EmailWebhookProvider } from './email-webhook.provider';
import { MailgunProvider } from './mailgun.provider';
import { MailjetProvider } from './mailjet.provider';
import { PostmarkProvider } from './postmark.provider';
import { ResendProvider } from './resend.provider';
import { SendgridProvider } from './sendgrid.provider';
import { SendinblueProvider } from './sendinblue.provider';

/** The built-in email providers. */
export const EMAIL_PROVIDERS: readonly Type<DeliveryProvider>[] = [
  EmailWebhookProvider,
  SendgridProvider,
  MailgunProvider,
  PostmarkProvider,
  ResendProvider,
  MailjetProvider,
  SendinblueProvider,
];
