import { gzipSync } from 'node:zlib';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { encryptDsInfo, SmlClient } from '@sml/sdk';
import { newCustomer, sharedSystem, startS3, type S3Server, type SharedSystem } from '@sml/testkit';
import { readCsv, SummaryReader } from './helpers';

// Issue 11: an s3 data source (s3rver) through the gateway: dsbrowse of a prefix, a gzipped
// CSV object learned as a job like a local file, the secret key never answered; dss/predict
// from an s3 object into another.

describe('data sources (s3) end to end', () => {
  let sys: SharedSystem;
  let s3: S3Server;
  let alice: SmlClient;
  let secret: string;
  let reader: SummaryReader;

  beforeAll(async () => {
    [s3, sys] = await Promise.all([startS3({ buckets: ['lake'] }), sharedSystem()]);
    const client = new S3Client({ region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: s3.accessKey, secretAccessKey: s3.secretKey }, requestChecksumCalculation: 'WHEN_REQUIRED' });
    const { names, rows } = readCsv('Iris_rtlm.csv');
    await client.send(new PutObjectCommand({ Bucket: 'lake', Key: 'iris/iris.csv.gz', Body: gzipSync([names.join(','), ...rows.map((r) => r.join(','))].join('\r\n')) }));
    client.destroy();
    ({ sdk: alice, secret } = await newCustomer(sys, 'alice'));
    reader = await SummaryReader.open(sys.nats);
  }, 60_000);
  afterAll(async () => {
    await reader?.close();
    alice?.close();
    await s3?.stop();
  });

  const info = (path: string) => ({ path, s3bucket: 'lake', s3accessKey: s3.accessKey, s3secretKey: s3.secretKey, s3endpoint: s3.endpoint, s3region: s3.region });

  it('browses a prefix, learns a gzipped object as a job, never answers the secret', async () => {
    const browse = await alice.request<{ dsdirectoryListing: { ok: boolean; dirs: string[]; files: string[] } }>('POST', '/projects/dsbrowse',
      { raw: encryptDsInfo({ type: 's3', name: 'b', info: info('') }, secret) });
    expect(browse.status).toBe(200);
    expect(browse.body.values!.dsdirectoryListing).toMatchObject({ ok: true, dirs: ['iris'], files: [] });
    const inside = await alice.request<{ dsdirectoryListing: { files: string[] } }>('POST', '/projects/dsbrowse', { raw: encryptDsInfo({ type: 's3', name: 'b', info: info('iris') }, secret) });
    expect(inside.body.values!.dsdirectoryListing.files).toEqual(['iris.csv.gz']);
    expect((await alice.createDataSource({ type: 's3', name: 'iris', info: info('iris/iris.csv.gz') })).status).toBe(201);
    const got = await alice.request<{ dsInfo: { info: Record<string, string> } }>('GET', '/dss/iris');
    // (s3rver's access key and secret key are the same word: the key is what must be absent.)
    expect(Object.keys(got.body.values!.dsInfo.info).sort()).toEqual(['path', 's3accessKey', 's3bucket', 's3endpoint', 's3region']);
    await alice.createProject('p');
    const { names, rows } = readCsv('Iris_rtlm.csv');
    const done = await alice.waitForJob(await alice.learnDataSource('p', 'iris', { attributeNames: names.slice(0, 4), attributeTypes: ['C', 'C', 'C', 'C'] }));
    expect(done.status).toBe(200);
    const s = await reader.full(alice.user, 'p');
    expect(s.rowCount).toBe(rows.length);
    expect(s.mean(names[0])).toBeCloseTo(rows.reduce((a, r) => a + Number(r[0]), 0) / rows.length, 12);
  });

  it('dss/predict writes an s3 object: the input columns and each prediction as inline predict answers it (the project the test above learned)', async () => {
    const { names, rows } = readCsv('Iris_rtlm.csv');
    const build = await alice.request('POST', '/projects/p/build', { query: { modelid: 'reg', algo: 'mlr' }, json: { inputAttributeNames: names.slice(1, 4), targetAttributeNames: [names[0]] } });
    expect((await alice.waitForJob(build)).status).toBe(200);
    expect((await alice.createDataSource({ type: 's3', name: 'scores', info: info('scores/iris.csv') })).status).toBe(201);
    const done = await alice.waitForJob<{ predictReport: { rowsPredicted: number; bytesWritten: number; attributeNames: string[] } }>(await alice.predictDataSource('p', 'reg', 'iris', 'scores'));
    expect(done.status).toBe(200);
    const report = done.body.values!.predictReport;
    expect(report.rowsPredicted).toBe(rows.length);

    const client = new S3Client({ region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: s3.accessKey, secretAccessKey: s3.secretKey } });
    const object = await client.send(new GetObjectCommand({ Bucket: 'lake', Key: 'scores/iris.csv' }));
    const text = await object.Body!.transformToString();
    client.destroy();
    expect(Buffer.byteLength(text)).toBe(report.bytesWritten);
    const [header, ...lines] = text.trimEnd().split('\n').map((l) => l.split(','));
    const inline = await alice.request<{ KSVSMap: { values: Record<string, string>[] } }>('POST', '/projects/p/predict/reg', {
      json: { attributeNames: names.slice(1, 4), attributeTypes: ['C', 'C', 'C'], data: rows.map((r) => r.slice(1, 4)) },
    });
    const expected = inline.body.values!.KSVSMap.values;
    const keys = Object.keys(expected[0]);
    expect(header).toEqual([...names, ...keys]);
    expect(report.attributeNames).toEqual(header);
    expect(lines).toHaveLength(rows.length);
    lines.forEach((line, i) => {
      expect(line.slice(0, names.length)).toEqual(rows[i]);
      expect(line.slice(names.length)).toEqual(keys.map((k) => expected[i][k]));
    });
  });
});
