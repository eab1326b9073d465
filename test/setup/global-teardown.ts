import type { DevDatabase } from '../../sample-app/embedded-database';

/** Stops the embedded PostgreSQL of the run (nothing to do when `DATABASE_URL` was used). */
export default async function globalTeardown(): Promise<void> {
  const db = (globalThis as Record<string, unknown>).__NTF_DB__ as DevDatabase | undefined;
  await db?.stop();
}
