import { MikroOrmModule } from '@mikro-orm/nestjs';
import { type DynamicModule, Module } from '@nestjs/common';
import { NotificationsModule } from '../lib';
import { createOrmConfig } from './mikro-orm.config';

/**
 * The sample host app: MikroORM on PostgreSQL with the module's entities, and the module mounted
 * with `forRootAsync` the way a production app would (options from configuration).
 */
@Module({})
export class AppModule {
  static register(databaseUrl: string): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MikroOrmModule.forRoot(createOrmConfig(databaseUrl)),
        NotificationsModule.forRootAsync({
          useFactory: () => ({
            // A real app reads this from its secret store. The sample's fallback is for local use only.
            encryptionKey: process.env.NOTIFICATIONS_ENCRYPTION_KEY ?? 'sample-app-local-encryption-key',
          }),
        }),
      ],
    };
  }
}
