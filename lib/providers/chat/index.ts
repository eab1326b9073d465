import type { Type } from '@nestjs/common';
import type { DeliveryProvider } from '../delivery-provider';
import { ChatWebhookProvider } from './chat-webhook.provider';
import { DiscordProvider } from './discord.provider';
import { MattermostProvider } from './mattermost.provider';
import { MsTeamsProvider } from './msteams.provider';
import { SlackProvider } from './slack.provider';
import { TelegramProvider } from './telegram.provider';

/** The built-in chat providers. */
export const CHAT_PROVIDERS: readonly Type<DeliveryProvider>[] = [ChatWebhookProvider, SlackProvider, DiscordProvider, MsTeamsProvider, MattermostProvider, TelegramProvider];
