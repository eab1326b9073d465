import { InvalidNotificationsOptionsError, resolveNotificationsOptions } from './notifications.options';

describe('resolveNotificationsOptions', () => {
  it('applies the defaults and freezes the result', () => {
    const options = resolveNotificationsOptions({ encryptionKey: 'sixteen-chars-key' });
    expect(options.idempotency).toEqual({ enabled: true, ttlSeconds: 86_400, lockSeconds: 300 });
    expect(options.auth).toEqual({ apiKeyCacheSeconds: 10 });
    expect(options.workflows).toEqual([]);
    expect(Object.isFrozen(options)).toBe(true);
  });

  it.each([undefined, '', 'too-short'])('refuses the encryption key %p', (encryptionKey) => {
    expect(() => resolveNotificationsOptions({ encryptionKey } as never)).toThrow(InvalidNotificationsOptionsError);
  });

  it('refuses duplicate workflow identifiers and negative durations, saying how to fix them', () => {
    const workflow = { identifier: 'welcome', name: 'Welcome', steps: [] };
    expect(() => resolveNotificationsOptions({ encryptionKey: 'sixteen-chars-key', workflows: [workflow, workflow] })).toThrow(/appears twice/);
    expect(() => resolveNotificationsOptions({ encryptionKey: 'sixteen-chars-key', idempotency: { ttlSeconds: -1 } })).toThrow(
      /idempotency.ttlSeconds/,
    );
  });
});
