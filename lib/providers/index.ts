// Delivery providers: the contract, the built-in generic webhook providers, and their registry.
export {
  type DeliveryChannel,
  DeliveryError,
  type DeliveryMessage,
  DeliveryProvider,
  type DeliveryRecipient,
  type DeliveryResult,
} from './delivery-provider';
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
