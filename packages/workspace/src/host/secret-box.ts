import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { keyFile } from '../key-file.js';

// Accounts are stored encrypted at rest with AES-256-GCM. The key comes from WEFT_SECRET_KEY (any
// string; hashed to 32 bytes) or, for local use, from a key file generated once in the data
// directory (mode 0600). A stored value is "v1:<iv>:<tag>:<ciphertext>", base64url each.

export class SecretBox {
  private readonly key: Buffer;

  constructor(secret: string | Buffer) {
    this.key = createHash('sha256').update(secret).digest();
  }

  /** The key from `WEFT_SECRET_KEY`, else from `<dir>/secret.key` (created when missing), else a random one (memory only). */
  static fromEnv(env: NodeJS.ProcessEnv, dir: string | undefined): SecretBox {
    if (env.WEFT_SECRET_KEY) return new SecretBox(env.WEFT_SECRET_KEY);
    if (!dir) return new SecretBox(randomBytes(32));
    return new SecretBox(keyFile(dir, 'secret.key'));
  }

  seal(value: unknown): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), data]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join(':');
  }

  open<T = Record<string, unknown>>(sealed: string): T {
    const [version, iv, tag, data] = sealed.split(':');
    if (version !== 'v1' || !iv || !tag || data === undefined)
      throw new Error('Stored account is not readable');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const text = Buffer.concat([
        decipher.update(Buffer.from(data, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
      return JSON.parse(text) as T;
    } catch {
      // Never say more: the message may reach a page.
      throw new Error('Stored account cannot be decrypted with this key (WEFT_SECRET_KEY changed?)');
    }
  }
}
