import { existsSync } from 'node:fs';
import { GetObjectCommand, ListBucketsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startS3, type S3Server } from '../src/s3';

function clientOf(s3: S3Server): S3Client {
  return new S3Client({
    region: s3.region,
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKey, secretAccessKey: s3.secretKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
}

describe('startS3', () => {
  it('serves the given buckets on a loopback port to the AWS SDK, and stop() ends it and removes its directory', async () => {
    const s3 = await startS3({ buckets: ['one', 'two'] });
    const client = clientOf(s3);
    try {
      expect(s3.endpoint).toBe(`http://127.0.0.1:${s3.port}`);
      expect(existsSync(s3.directory)).toBe(true);
      const buckets = await client.send(new ListBucketsCommand({}));
      expect(buckets.Buckets?.map((b) => b.Name).sort()).toEqual(['one', 'two']);
      await client.send(new PutObjectCommand({ Bucket: 'one', Key: 'a/b.csv', Body: 'x,y\n1,2\n' }));
      const got = await client.send(new GetObjectCommand({ Bucket: 'one', Key: 'a/b.csv' }));
      expect(await got.Body?.transformToString()).toBe('x,y\n1,2\n');
    } finally {
      client.destroy();
      await s3.stop();
    }
    expect(existsSync(s3.directory)).toBe(false);
    const after = clientOf(s3);
    await expect(after.send(new ListBucketsCommand({}))).rejects.toThrow(/ECONNREFUSED/);
    after.destroy();
  });

  it('two servers run side by side, each with its own objects', async () => {
    const [a, b] = await Promise.all([startS3({ buckets: ['shared'] }), startS3({ buckets: ['shared'] })]);
    const [ca, cb] = [clientOf(a), clientOf(b)];
    try {
      expect(a.port).not.toBe(b.port);
      await ca.send(new PutObjectCommand({ Bucket: 'shared', Key: 'only-in-a', Body: '1' }));
      await expect(cb.send(new GetObjectCommand({ Bucket: 'shared', Key: 'only-in-a' }))).rejects.toMatchObject({ name: 'NoSuchKey' });
    } finally {
      ca.destroy();
      cb.destroy();
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
