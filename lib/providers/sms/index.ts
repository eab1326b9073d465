import type { Type } from '@nestjs/common';
import type { DeliveryProvider } from '../delivery-provider';
import { GenericSmsProvider } from './generic-sms.provider';

/** The built-in SMS providers. */
export const SMS_PROVIDERS: readonly Type<DeliveryProvider>[] = [GenericSmsProvider];
