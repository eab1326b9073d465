import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { NotificationsModule } from './notifications.module';

/**
 * Builds the OpenAPI document of the module's routes, with the `secretKey` security scheme of the
 * contract (`Authorization: ApiKey <secret>`). Hosts serve it with `SwaggerModule.setup(path, app, doc)`.
 * @publicApi
 */
export function createNotificationsOpenApiDocument(
  app: INestApplication,
  info: { title?: string; version?: string; description?: string } = {},
): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle(info.title ?? 'Notifications API')
    .setDescription(info.description ?? 'Subscribers, integrations, channel connections, messages and notifications.')
    .setVersion(info.version ?? '1.0')
    .addApiKey(
      { type: 'apiKey', name: 'Authorization', in: 'header', description: 'API key authentication: "Authorization: ApiKey <secret>".' },
      'secretKey',
    )
    .addSecurityRequirements('secretKey')
    .build();
  return SwaggerModule.createDocument(app, config, { include: [NotificationsModule], deepScanRoutes: true });
}
