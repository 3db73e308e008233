import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { objectStore, useNativeObjectDigest } from '@sml/bus';
import { startNatsServer, type NatsServer } from '@sml/testkit';

/** Python hashlib's digest of the blob below (fixtures/gen_digest.py): a reference independent of node:crypto. */
const reference: { length: number; sha256_base64url: string } = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'digest.json'), 'utf8'));

describe('object-store digests computed by node:crypto (useNativeObjectDigest)', () => {
  let nats: NatsServer;
  let nc: NatsConnection;
  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connect({ servers: nats.url });
  });
  afterAll(async () => {
    await nc.close();
    await nats.stop();
  });

  it('is installed into the nats.js this repository uses', () => {
    expect(useNativeObjectDigest()).toBe('native');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the patched module of nats.js
    const created = (require('nats/lib/nats-base-client/js-sha256') as { sha256: { create: () => object } }).sha256.create();
    // node:crypto's Hash (js-sha256's hasher has no `copy`).
    expect(typeof (created as { copy?: unknown }).copy).toBe('function');
  });

  it('an object stored in pieces carries the standard SHA-256 of its bytes (what any NATS client checks) and reads back whole', async () => {
    const os = await objectStore(nc, 'digest_test');
    const data = Uint8Array.from({ length: reference.length }, (_, i) => (131 * i + 7) % 256);
    await os.putBlob({ name: 'blob', options: { max_chunk_size: 128 * 1024 } }, data);
    const info = await os.info('blob');
    // base64url, padded: SHA-256=<43 characters>=
    expect(info?.digest).toBe(`SHA-256=${reference.sha256_base64url}`);
    expect(info?.chunks).toBe(4);
    const back = await os.getBlob('blob');
    expect(Buffer.from(back!).equals(data)).toBe(true);
  });
});
