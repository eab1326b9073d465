import type { Type } from '@nestjs/common';
import type { DeliveryProvider } from '../delivery-provider';
import { ChatWebhookProvider } from './chat-webhook.provider';

/** The built-in chat providers. */
export const CHAT_PROVIDERS: readonly Type<DeliveryProvider>[] = [ChatWebhookProvider];
