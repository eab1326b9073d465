// Delivery providers: the contract, the helpers to write one, the built-in providers, and their registry.
export {
  type DeliveryChannel,
  type DeliveryConnection,
  DeliveryError,
  type DeliveryErrorOptions,
  type DeliveryMessage,
  DeliveryProvider,
  type DeliveryRecipient,
  type DeliveryResult,
} from './delivery-provider';
export {
  basicAuth,
  isTransientStatus,
  type VendorFailure,
  type VendorHeaders,
  type VendorRequest,
  vendorRequest,
  type VendorResponse,
  vendorUrl,
} from './vendor-http';
export { collectSecrets, REDACTED, redactSecrets } from './redact';
export { type EmailParts, emailParts, htmlToText } from './email/email-content';
export { type DeviceSendResult, type DeviceTokenOutcome, sendToDeviceTokens } from './push/device-tokens';
export {
  BUILT_IN_DELIVERY_PROVIDERS,
  createDeliveryProviders,
  DELIVERY_PROVIDER_MODULE_PROVIDERS,
  DELIVERY_PROVIDERS,
  DeliveryProviderRegistry,
} from './delivery-provider.registry';
export {
  credentialString,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  postWebhook,
  requireRecipientField,
  signWebhookBody,
  verifyWebhookSignature,
  WEBHOOK_IDEMPOTENCY_HEADER,
  WEBHOOK_RESPONSE_BODY_LIMIT,
  WEBHOOK_SIGNATURE_HEADER,
  WebhookDeliveryProvider,
  type WebhookEnvelope,
  webhookEnvelope,
  type WebhookRequest,
  type WebhookResponseRaw,
} from './webhook-request';
export { type EmailWebhookBody, EmailWebhookProvider } from './email/email-webhook.provider';
export { GenericSmsProvider, type SmsWebhookBody } from './sms/generic-sms.provider';
export { type ChatWebhookBody, ChatWebhookProvider } from './chat/chat-webhook.provider';
export { PushWebhookProvider, type PushWebhookBody } from './push/push-webhook.provider';
// The vendors (issue 4): one class per providerId, all registered by default.
export { MailgunProvider } from './email/mailgun.provider';
export { MailjetProvider } from './email/mailjet.provider';
export { NodemailerProvider } from './email/nodemailer.provider';
export { PostmarkProvider } from './email/postmark.provider';
export { ResendProvider } from './email/resend.provider';
export { SendgridProvider } from './email/sendgrid.provider';
export { SendinblueProvider } from './email/sendinblue.provider';
export { SesProvider } from './email/ses.provider';
export { MessageBirdProvider } from './sms/messagebird.provider';
export { NexmoProvider } from './sms/nexmo.provider';
export { PlivoProvider } from './sms/plivo.provider';
export { SnsProvider } from './sms/sns.provider';
export { TelnyxProvider } from './sms/telnyx.provider';
export { TwilioProvider } from './sms/twilio.provider';
export { DiscordProvider } from './chat/discord.provider';
export { MattermostProvider } from './chat/mattermost.provider';
export { MsTeamsProvider } from './chat/msteams.provider';
export { SlackProvider } from './chat/slack.provider';
export { TelegramProvider } from './chat/telegram.provider';
export { ApnsProvider } from './push/apns.provider';
export { ExpoProvider } from './push/expo.provider';
export { FcmProvider } from './push/fcm.provider';
export { OneSignalProvider } from './push/one-signal.provider';
