import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { KV } from 'nats';
import { isKeyExists } from '@sml/bus';

const KEY = 'seal';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals fusion cells' secrets at rest (AES-256-GCM): a project's metadata, snapshots and
 * exports hold `sk` only sealed. The key is one random 32-byte key of the deployment in KV
 * `sml_fusion`, created once (compare-and-set, so every replica agrees on it).
 */
export class SecretSeal {
  private constructor(private readonly key: Buffer) {}

  static async open(kv: KV): Promise<SecretSeal> {
    try {
      await kv.create(KEY, randomBytes(32));
    } catch (err) {
      if (!isKeyExists(err)) throw err;
    }
    const entry = await kv.get(KEY);
    if (!entry || entry.value.length !== 32) throw new Error('KV sml_fusion holds no 32-byte seal key');
    return new SecretSeal(Buffer.from(entry.value));
  }

  static ofKey(key: Uint8Array): SecretSeal {
    return new SecretSeal(Buffer.from(key));
  }

  seal(plain: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `s1:${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64')}`;
  }

  unseal(sealed: string): string {
    const data = Buffer.from(sealed.replace(/^s1:/, ''), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, data.subarray(0, NONCE_BYTES));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    return Buffer.concat([decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}
