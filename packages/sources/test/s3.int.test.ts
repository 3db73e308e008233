// Reference: a real S3 server, s3rver (npm), started by the testkit as a child process.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import { freePort, RssAfterWarmUp, startS3, type S3Server } from '@sml/testkit';
import { sinkOf } from '../src/registry';
import { browseS3, s3Source } from '../src/s3';
import { s3Sink } from '../src/sinks';
import { SourceError, type ByteSource, type SourceContext, type SourceInfo } from '../src/types';

const BUCKET = 'data';
const WARM_UP = 10 * 1024 * 1024;
const ctx: SourceContext = { user: 'alice', filesRoot: '/nonexistent', timeoutMs: 5_000, allowPrivate: true };

let s3: S3Server;
let client: S3Client;
let dir: string;

beforeAll(async () => {
  s3 = await startS3({ buckets: [BUCKET] });
  client = new S3Client({
    region: s3.region,
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKey, secretAccessKey: s3.secretKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  dir = await mkdtemp(join(tmpdir(), 'sml-s3-test-'));
  await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'small/rows.csv', Body: 'a,b\n1,2\n' }));
  await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'small/sub/other.csv', Body: 'x\n' }));
});

afterAll(async () => {
  client.destroy();
  await s3.stop();
  await rm(dir, { recursive: true, force: true });
});

function info(extra: Record<string, string> = {}): SourceInfo {
  return { path: 'small/rows.csv', s3bucket: BUCKET, s3accessKey: s3.accessKey, s3secretKey: 'the-secret-key', s3endpoint: s3.endpoint, ...extra };
}

function bytes(source: ReturnType<typeof s3Source>): ByteSource {
  if (source.kind !== 'bytes') throw new Error('an s3 source reads bytes');
  return source;
}

async function readAll(source: ByteSource): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of source.open()) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function failure(promise: Promise<unknown>): Promise<SourceError> {
  const error: unknown = await promise.then(() => undefined, (e: unknown) => e);
  if (!(error instanceof SourceError)) throw new Error(`expected a SourceError, got ${String(error)}`);
  return error;
}

describe('s3 source', () => {
  it('reads an object and its size, naming it s3://bucket/key', async () => {
    const source = bytes(s3Source(info(), ctx));
    expect(source.describe()).toBe(`s3://${BUCKET}/small/rows.csv`);
    expect(await source.size()).toBe(8);
    expect(await readAll(source)).toBe('a,b\n1,2\n');
  });

  it('streams a 50 MB object intact while the reader\'s memory grows far less than the object', async () => {
    const file = join(dir, 'big.csv');
    const out = createWriteStream(file);
    const line = `${'1234567.891,'.repeat(20)}0\n`;
    const lines = Math.ceil((50 * 1024 * 1024) / line.length);
    const block = line.repeat(1000);
    for (let i = 0; i < lines / 1000; i++) if (!out.write(block)) await once(out, 'drain');
    out.end();
    await finished(out);
    const expected = createHash('sha256');
    for await (const chunk of createReadStream(file)) expected.update(chunk as Buffer);
    const size = Math.ceil(lines / 1000) * block.length;
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'big.csv', Body: createReadStream(file), ContentLength: size }));

    const source = bytes(s3Source(info({ path: 'big.csv' }), ctx));
    expect(await source.size()).toBe(size);
    const rss = new RssAfterWarmUp(WARM_UP);
    const hash = createHash('sha256');
    for await (const chunk of source.open()) {
      rss.read(chunk.byteLength);
      hash.update(chunk);
    }
    expect(rss.total).toBe(size);
    expect(hash.digest('hex')).toBe(expected.digest('hex'));
    // A reader that kept its chunks would grow by the whole read after the warm-up (40 MB); one
    // that streams grows by buffers only, but the server writing in this process adds its own
    // socket buffers, which on a loaded machine reached 12 MB: half the read is the bound.
    expect(rss.growth).toBeLessThan((size - WARM_UP) / 2);
  });

  it('a missing object or bucket is not-found', async () => {
    const missingKey = bytes(s3Source(info({ path: 'small/nope.csv' }), ctx));
    expect((await failure(missingKey.size())).reason).toBe('not-found');
    expect((await failure(readAll(missingKey))).reason).toBe('not-found');
    const missingBucket = bytes(s3Source(info({ s3bucket: 'nobucket' }), ctx));
    const error = await failure(readAll(missingBucket));
    expect(error.reason).toBe('not-found');
    expect(error.message).toBe('s3://nobucket/small/rows.csv: no such bucket');
  });

  it('an unknown access key is denied, and the message names neither key', async () => {
    const source = bytes(s3Source(info({ s3accessKey: 'AKIAWRONGKEY' }), ctx));
    for (const error of [await failure(source.size()), await failure(readAll(source))]) {
      expect(error.reason).toBe('denied');
      expect(error.message).not.toMatch(/AKIAWRONGKEY|the-secret-key/);
    }
  });

  it('an endpoint nobody listens on is unreachable', async () => {
    const port = await freePort();
    const source = bytes(s3Source(info({ s3endpoint: `http://127.0.0.1:${port}` }), ctx));
    const error = await failure(readAll(source));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it('bad info is invalid before any request', () => {
    const invalid = (extra: Record<string, string>) => {
      try {
        s3Source(info(extra), ctx);
      } catch (error) {
        return error instanceof SourceError ? error.reason : error;
      }
      return 'accepted';
    };
    expect(invalid({ s3bucket: '' })).toBe('invalid');
    expect(invalid({ s3secretKey: ' ' })).toBe('invalid');
    expect(invalid({ path: 'small/' })).toBe('invalid');
    expect(invalid({ s3endpoint: 'ftp://127.0.0.1:21' })).toBe('invalid');
    expect(invalid({ s3endpoint: 'not a url' })).toBe('invalid');
  });

  it('aborting the context signal stops a read in progress with the abort reason', async () => {
    const controller = new AbortController();
    const source = bytes(s3Source(info({ path: 'big.csv' }), { ...ctx, signal: controller.signal }));
    const reason = new Error('job cancelled');
    let read = 0;
    const reading = (async () => {
      for await (const chunk of source.open()) {
        read += chunk.byteLength;
        if (read > 1024 * 1024) controller.abort(reason);
      }
    })();
    await expect(reading).rejects.toBe(reason);
    expect(read).toBeLessThan(10 * 1024 * 1024);
  });

  it('browses the folders and objects right under a prefix, names only, like localfile', async () => {
    expect(await browseS3(info(), ctx, 'small/')).toEqual({ ok: true, path: 'small', dirs: ['sub'], files: ['rows.csv'] });
    const root = await browseS3(info(), ctx, '');
    expect(root).toMatchObject({ ok: true, path: '', dirs: ['small'] });
    expect(root.files).toContain('big.csv');
    expect((await failure(browseS3(info({ s3bucket: 'nobucket' }), ctx, ''))).reason).toBe('not-found');
  });
});

describe('s3 sink (dss/predict outputs)', () => {
  const objectBytes = async (key: string): Promise<Buffer> => {
    const got = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    return Buffer.from(await got.Body!.transformToByteArray());
  };
  const exists = (key: string) => client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })).then(() => true, () => false);

  it('writes the CSV as a multipart upload: parts as the rows come, the object visible only once completed', async () => {
    const send = jest.spyOn(S3Client.prototype, 'send');
    try {
      const sink = s3Sink(info({ path: 'out/pred.csv' }), ctx, 40);
      expect(sink.describe()).toBe(`s3://${BUCKET}/out/pred.csv`);
      await sink.begin(['x', 'note'], [true, false]);
      const rows = Array.from({ length: 41 }, (_, i) => [String(i), i % 7 === 0 ? `a,b "${i}"` : `n${i}`]);
      // Batches of 8 rows, then a last row alone: less than a part is left for commit to upload.
      for (let i = 0; i < 40; i += 8) await sink.write(rows.slice(i, i + 8));
      await sink.write(rows.slice(40));
      expect(await exists('out/pred.csv')).toBe(false);
      const report = await sink.commit();
      const text = `x,note\n${rows.map(([x, note]) => `${x},${note.includes(',') ? `"${note.replaceAll('"', '""')}"` : note}`).join('\n')}\n`;
      expect((await objectBytes('out/pred.csv')).toString('utf8')).toBe(text);
      expect(report).toEqual({ rowsWritten: 41, bytesWritten: Buffer.byteLength(text) });
      // Parts of 40 bytes or more (a batch or two): several, numbered from 1.
      const parts = send.mock.calls.map(([command]) => command).filter((c) => c instanceof UploadPartCommand).map((c) => (c as UploadPartCommand).input.PartNumber);
      expect(parts.length).toBeGreaterThan(4);
      expect(parts).toEqual(parts.map((_, i) => i + 1));
    } finally {
      send.mockRestore();
    }
  });

  it('gzips a .gz key, and an output with no rows is its header', async () => {
    const gz = s3Sink(info({ path: 'out/pred.csv.gz', csv_entry_separator: ';' }), ctx, 10);
    await gz.begin(['x', 'y'], [true, true]);
    await gz.write([['1', '2']]);
    await gz.write([['3', '4']]);
    await gz.commit();
    expect(gunzipSync(await objectBytes('out/pred.csv.gz')).toString('utf8')).toBe('x;y\n1;2\n3;4\n');
    const empty = sinkOf('s3', info({ path: 'out/empty.csv' }), ctx);
    await empty.begin(['x'], [true]);
    expect(await empty.commit()).toEqual({ rowsWritten: 0, bytesWritten: 2 });
    expect((await objectBytes('out/empty.csv')).toString('utf8')).toBe('x\n');
  });

  it('abort leaves no object, nor does a cancel', async () => {
    const sink = s3Sink(info({ path: 'out/aborted.csv' }), ctx, 10);
    await sink.begin(['x'], [true]);
    await sink.write([['1'], ['2']]);
    await sink.abort();
    expect(await exists('out/aborted.csv')).toBe(false);
    const controller = new AbortController();
    const cancelled = s3Sink(info({ path: 'out/cancelled.csv' }), { ...ctx, signal: controller.signal }, 10);
    await cancelled.begin(['x'], [true]);
    controller.abort(new Error('job cancelled'));
    await expect(cancelled.write([['1']])).rejects.toThrow('job cancelled');
    await expect(cancelled.commit()).rejects.toThrow('job cancelled');
    await cancelled.abort();
    expect(await exists('out/cancelled.csv')).toBe(false);
  });

  it('an unknown access key is denied at begin, a missing bucket not-found, and messages name neither key', async () => {
    const denied = s3Sink(info({ path: 'out/x.csv', s3accessKey: 'AKIAWRONGKEY' }), ctx);
    const error = await failure(denied.begin(['x'], [true]));
    expect(error.reason).toBe('denied');
    expect(error.message).not.toMatch(/AKIAWRONGKEY|the-secret-key/);
    await denied.abort();
    const missing = s3Sink(info({ path: 'out/x.csv', s3bucket: 'nobucket' }), ctx);
    expect((await failure(missing.begin(['x'], [true]))).reason).toBe('not-found');
    expect(() => s3Sink(info({ path: 'out/' }), ctx)).toThrow(/must name an object/);
  });
});
