import { Inject } from '@nestjs/common';

/**
 * Token of the resolved module options ({@link ResolvedNotificationsOptions}).
 * @publicApi
 */
export const NOTIFICATIONS_OPTIONS = 'NOTIFICATIONS:MODULE_OPTIONS';

/**
 * Injects the resolved module options.
 * @publicApi
 */
export const InjectNotificationsOptions = (): ParameterDecorator => Inject(NOTIFICATIONS_OPTIONS);
