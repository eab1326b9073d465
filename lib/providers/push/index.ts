import type { Type } from '@nestjs/common';
import type { DeliveryProvider } from '../delivery-provider';
import { ApnsProvider } from './apns.provider';
import { ExpoProvider } from './expo.provider';
import { FcmProvider } from './fcm.provider';
import { OneSignalProvider } from './one-signal.provider';
import { PushWebhookProvider } from './push-webhook.provider';

/** The built-in push providers. */
export const PUSH_PROVIDERS: readonly Type<DeliveryProvider>[] = [PushWebhookProvider, FcmProvider, ApnsProvider, ExpoProvider, OneSignalProvider];
