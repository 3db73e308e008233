import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nameToken } from '@sml/core';
import { frameFromCsv, frameFromRecords, httpTransport, predictionRecords, SmlClient, type JobProgress, type RetryEvent, type SmlResponse, type Transport } from '@sml/sdk';
import { newCustomer, sharedSystem, type SharedSystem } from '@sml/testkit';

// The SDK against a running system: a learn from CSV whose first answer is lost (the gateway
// applied it, the client is told 503) and retried with the same Idempotency-Key, applied once;
// a data-source learn followed with progress callbacks; a build; a predict read back as records.

/** y = 1 + 2·x1 − 3·x2 exactly, so that the model's coefficients say what it learned. */
function csv(rows: number, from = 0): string {
  const lines = ['x1,x2,flag,y'];
  for (let i = from; i < from + rows; i++) {
    const x1 = (i % 97) / 10;
    const x2 = (i % 13) / 7;
    lines.push(`${x1},${x2.toFixed(6)},${i % 2},${(1 + 2 * x1 - 3 * Number(x2.toFixed(6))).toFixed(6)}`);
  }
  return `${lines.join('\n')}\n`;
}

describe('the SDK end to end', () => {
  let sys: SharedSystem;
  let sdk: SmlClient;
  let files: string;
  const retries: RetryEvent[] = [];
  const learnKeys: string[] = [];
  beforeAll(async () => {
    sys = await sharedSystem();
    const customer = await newCustomer(sys, 'sdk');
    customer.sdk.close();
    files = join(sys.dataDir, 'files', nameToken(customer.user));
    mkdirSync(files, { recursive: true });
    const real = httpTransport();
    let lost = false;
    // The first learn reaches the gateway, which learns it; its answer is replaced by a 503, as
    // when a service answers too late: the SDK sends it again, with the same key.
    const transport: Transport = async (ex) => {
      const answer = await real(ex);
      if (!ex.url.pathname.endsWith('/learn')) return answer;
      learnKeys.push(ex.headers['idempotency-key']);
      if (lost) return answer;
      lost = true;
      return { status: 503, headers: { 'retry-after': '0' }, text: JSON.stringify({ statusCode: 503, statusString: 'Service [projects] did not answer within 1 ms', values: {} }) };
    };
    sdk = new SmlClient({ url: sys.url, user: customer.user, secret: customer.secret, basePath: sys.basePath, transport, retry: { baseDelayMs: 10, onRetry: (e) => retries.push(e) } });
  }, 120_000);
  afterAll(() => sdk?.close());

  /** The finished result of a job the response created. */
  async function finished(res: SmlResponse<unknown>, onProgress?: (p: JobProgress) => void) {
    expect(res.status).toBe(202);
    const done = await sdk.waitForJob<{ modelInfo: { info: Record<string, string>; extra: Record<string, string> } }>(res, { timeoutMs: 60_000, intervalMs: 10, onProgress });
    expect(done.status).toBe(200);
    return done.body.values!;
  }

  const build = (pid: string, modelid: string) => sdk.operations.buildModel(pid, {
    query: { modelid, algo: 'mlr' }, json: { inputAttributeNames: ['x1', 'x2'], targetAttributeNames: ['y'] },
  });

  it('learns a CSV frame once through a retried 503, builds, predicts records', async () => {
    expect((await sdk.createProject('csv')).status).toBe(201);
    const frame = frameFromCsv(csv(150));
    expect(frame.attributeTypes).toEqual(['C', 'C', 'B', 'C']);
    const learned = await sdk.learn('csv', frame, { idempotencyKey: true });
    expect(learned.status).toBe(200);
    expect(retries.map((r) => [r.retry, r.status, r.path])).toEqual([[1, 503, `${sys.basePath}/${sdk.user}/projects/csv/learn`]]);
    expect(learnKeys).toHaveLength(2);
    expect(learnKeys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(learnKeys[1]).toBe(learnKeys[0]);

    // Learned once: the model counts 150 rows, not 300.
    const model = await finished(await build('csv', 'lin'));
    expect(Number(model.modelInfo.info.n)).toBe(150);

    const input = frameFromRecords([{ x1: 1, x2: 0 }, { x1: 0.5, x2: 1 }], { types: ['C', 'C'] });
    const predicted = await sdk.operations.predict('csv', 'lin', { json: input });
    expect(predicted.status).toBe(200);
    const rows = predictionRecords(predicted.body.values, input);
    expect(rows.map((r) => [r.x1, r.x2, typeof r.res])).toEqual([['1', '0', 'number'], ['0.5', '1', 'number']]);
    expect(rows[0].res).toBeCloseTo(3, 6); // 1 + 2·1 − 3·0
    expect(rows[1].res).toBeCloseTo(-1, 6); // 1 + 2·0.5 − 3·1
  });

  it('a data-source learn reports its progress until 100 %', async () => {
    writeFileSync(join(files, 'big.csv'), csv(60_000, 7));
    expect((await sdk.createProject('ds')).status).toBe(201);
    expect((await sdk.createDataSource({ type: 'localfile', name: 'big', info: { path: 'big.csv' } })).status).toBe(201);
    const seen: JobProgress[] = [];
    await finished(await sdk.learnDataSource('ds', 'big'), (p) => seen.push(p));
    expect(seen.length).toBeGreaterThan(1);
    const last = seen[seen.length - 1];
    expect(last).toMatchObject({ percent: 100 });
    expect(last.done).toBe(last.total);
    // The job's size is known once its reader opened the file: a poll that came first saw 0, and a
    // fast machine may finish the job before the next poll. The last report carries what was seen.
    expect(last.total).toBe(Math.max(...seen.map((p) => p.total)));
    for (let i = 1; i < seen.length; i++) expect(seen[i].done).toBeGreaterThanOrEqual(seen[i - 1].done);
    const model = await finished(await build('ds', 'lin'));
    expect(Number(model.modelInfo.info.n)).toBe(60_000);
  });
});
