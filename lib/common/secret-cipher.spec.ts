import { AesGcmSecretCipher } from './secret-cipher';

describe('AesGcmSecretCipher', () => {
  const cipher = new AesGcmSecretCipher('a-test-key-of-enough-length');

  it('round-trips and never stores the plaintext', () => {
    const stored = cipher.encrypt('xoxb-secret-token');
    expect(stored.startsWith('v1:')).toBe(true);
    expect(stored).not.toContain('xoxb-secret-token');
    expect(cipher.decrypt(stored)).toBe('xoxb-secret-token');
  });

  it('uses a fresh IV per value', () => {
    expect(cipher.encrypt('same')).not.toBe(cipher.encrypt('same'));
  });

  it('refuses values from another key or tampered values', () => {
    const stored = cipher.encrypt('secret');
    expect(() => new AesGcmSecretCipher('another-key-of-enough-length').decrypt(stored)).toThrow();
    const [format, iv, tag, body] = stored.split(':');
    const flipped = Buffer.from(body, 'base64');
    flipped[0] ^= 1;
    expect(() => cipher.decrypt([format, iv, tag, flipped.toString('base64')].join(':'))).toThrow();
    expect(() => cipher.decrypt('plaintext')).toThrow(/not encrypted/);
  });
});
