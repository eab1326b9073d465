import { type ExecutionContext, UnauthorizedException } from '@nestjs/common';
import { resolveNotificationsOptions } from '../notifications.options';
import { ApiKeyGuard } from './api-key.guard';
import { type ApiKeyPrincipal, ApiKeyValidator } from './api-key-validator';
import { principalOf } from './principal';

class OneKeyValidator extends ApiKeyValidator {
  async validate(apiKey: string): Promise<ApiKeyPrincipal | null> {
    return apiKey === 'good' ? { environmentId: 'env', organizationId: 'org' } : null;
  }
}

function contextWith(headers: Record<string, string>): { context: ExecutionContext; request: object } {
  const request = { headers };
  const context = { switchToHttp: () => ({ getRequest: () => request }) } as unknown as ExecutionContext;
  return { context, request };
}

describe('ApiKeyGuard', () => {
  const guard = new ApiKeyGuard(
    new OneKeyValidator(),
    resolveNotificationsOptions({
      encryptionKey: 'sixteen-chars-key',
      sessionAuth: async (token) => (token === 'session' ? { environmentId: 'env', organizationId: 'org', userId: 'u' } : null),
    }),
  );

  const rejection = async (headers: Record<string, string>) => {
    const error = await guard.canActivate(contextWith(headers).context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedException);
    return (error as UnauthorizedException).message;
  };

  it('stores the principal of a valid ApiKey', async () => {
    const { context, request } = contextWith({ authorization: 'ApiKey good' });
    await expect(guard.canActivate(context)).resolves.toBe(true);
    expect(principalOf(request)).toEqual({ scheme: 'ApiKey', environmentId: 'env', organizationId: 'org' });
  });

  it('resolves Bearer tokens through sessionAuth', async () => {
    const { context, request } = contextWith({ authorization: 'Bearer session' });
    await guard.canActivate(context);
    expect(principalOf(request)).toMatchObject({ scheme: 'Bearer', userId: 'u' });
  });

  it('answers with the contract messages', async () => {
    expect(await rejection({})).toBe('Missing authorization header');
    expect(await rejection({ authorization: '   ' })).toBe('Missing authorization header');
    expect(await rejection({ authorization: 'Basic xyz' })).toBe('Invalid authentication scheme: "Basic"');
    expect(await rejection({ authorization: 'apikey good' })).toBe('Invalid authentication scheme: "apikey"');
    expect(await rejection({ authorization: 'ApiKey bad' })).toBe('API Key not found');
    expect(await rejection({ authorization: 'ApiKey' })).toBe('API Key not found');
    expect(await rejection({ authorization: `ApiKey ${'x'.repeat(10_000)}` })).toBe('API Key not found');
  });
});
