import type { Type } from '@nestjs/common';
import type { DeliveryProvider } from '../delivery-provider';
import { PushWebhookProvider } from './push-webhook.provider';

/** The built-in push providers. */
export const PUSH_PROVIDERS: readonly Type<DeliveryProvider>[] = [PushWebhookProvider];
