import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';

/**
 * Encrypts secrets (integration credentials, channel-connection tokens) before they are stored, and
 * decrypts them for the few places that need the plaintext (session callers, the delivery worker).
 *
 * An abstract class so that it is both the type and the DI token: a host that keeps its keys in a KMS
 * provides its own implementation with `{ provide: SecretCipher, useClass: KmsSecretCipher }`.
 * @publicApi
 */
export abstract class SecretCipher {
  /** Returns an opaque string that is safe to store. */
  abstract encrypt(plaintext: string): string;
  /** Reverses {@link encrypt}. Throws when the value was not produced with the same key. */
  abstract decrypt(ciphertext: string): string;
}

const FORMAT = 'v1';

/**
 * The default cipher: AES-256-GCM with a fresh 96-bit IV per value, the key derived from the
 * module's `encryptionKey` with scrypt (once, at boot). Stored form: `v1:<iv>:<tag>:<ciphertext>`, base64.
 */
export class AesGcmSecretCipher extends SecretCipher {
  private readonly key: Buffer;

  constructor(encryptionKey: string) {
    super();
    // A fixed salt is fine here: the salt's job (defeating precomputed tables for low-entropy
    // passwords) does not apply to a high-entropy configuration secret, and a fixed one keeps the
    // derived key stable across processes and restarts.
    this.key = scryptSync(encryptionKey, 'nest-notifications:secret-cipher', 32);
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
  }

  decrypt(ciphertext: string): string {
    const [format, iv, tag, body] = ciphertext.split(':');
    if (format !== FORMAT || !iv || !tag || body === undefined) {
      throw new Error('The value was not encrypted by AesGcmSecretCipher');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }
}
