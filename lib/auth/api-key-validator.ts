/** What a valid API key resolves to. */
export interface ApiKeyPrincipal {
  environmentId: string;
  organizationId: string;
  apiKeyId?: string;
}

/**
 * Decides whether an API key is valid and which environment it belongs to.
 *
 * An abstract class so that it is both the type and the DI token. The default looks keys up by their
 * sha256 hash in `ntf_api_key`; a host with its own key store provides another implementation:
 * `extraProviders: [{ provide: ApiKeyValidator, useClass: MyValidator }]`.
 * @publicApi
 */
export abstract class ApiKeyValidator {
  /** Resolves the plaintext key to its environment, or null when the key is unknown or revoked. */
  abstract validate(apiKey: string): Promise<ApiKeyPrincipal | null>;
}
