import { afterAll, beforeAll } from 'vitest';

// The workspace's secrets planted in this process's environment for the file's tests (and the
// environment put back after), so a test can show that a script never sees them.

export function plantSecrets(secretKey: string, adminToken: string): void {
  const saved = { key: process.env.WEFT_SECRET_KEY, admin: process.env.WEFT_ADMIN_TOKEN };
  beforeAll(() => {
    process.env.WEFT_SECRET_KEY = secretKey;
    process.env.WEFT_ADMIN_TOKEN = adminToken;
  });
  afterAll(() => {
    for (const [name, value] of [
      ['WEFT_SECRET_KEY', saved.key],
      ['WEFT_ADMIN_TOKEN', saved.admin],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
}
