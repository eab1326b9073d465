import type { Type } from '@nestjs/common';
import type { DeliveryProvider } from './delivery-provider';
import { NodemailerProvider } from './email/nodemailer.provider';
import { SesProvider } from './email/ses.provider';
import { SnsProvider } from './sms/sns.provider';

/** Built-in providers that speak through a vendor's own client library (nodemailer, the AWS SDK). */
export const SDK_BACKED_PROVIDERS: readonly Type<DeliveryProvider>[] = [NodemailerProvider, SesProvider, SnsProvider];
