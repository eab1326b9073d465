import type { Type } from '@nestjs/common';
import type { DeliveryProvider } from '../delivery-provider';
import { GenericSmsProvider } from './generic-sms.provider';
import { MessageBirdProvider } from './messagebird.provider';
import { NexmoProvider } from './nexmo.provider';
import { PlivoProvider } from './plivo.provider';
import { TelnyxProvider } from './telnyx.provider';
import { TwilioProvider } from './twilio.provider';

/** The built-in SMS providers. */
export const SMS_PROVIDERS: readonly Type<DeliveryProvider>[] = [GenericSmsProvider, TwilioProvider, NexmoProvider, PlivoProvider, TelnyxProvider, MessageBirdProvider];
