import type { Type } from '@nestjs/common';
import type { DeliveryProvider } from '../delivery-provider';
import { EmailWebhookProvider } from './email-webhook.provider';

/** The built-in email providers. */
export const EMAIL_PROVIDERS: readonly Type<DeliveryProvider>[] = [EmailWebhookProvider];
