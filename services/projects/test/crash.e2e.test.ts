import { randomUUID } from 'node:crypto';
import { Summary } from '@sml/stats';
import { startSystem, type RunningSystem } from '@sml/testkit';
import { customer, expectClose, SummaryReader } from './helpers';

// A client learns batches continuously while the projects service is SIGKILLed and restarted
// several times. Each batch is retried with its Idempotency-Key until it is acknowledged, so
// every batch ends up acknowledged exactly once: the summary must equal the summary of all
// batches learned in order (none lost, none doubled).
describe('projects service crash', () => {
  let sys: RunningSystem;
  let reader: SummaryReader;

  beforeAll(async () => {
    sys = await startSystem({
      services: ['users', 'jobs', 'projects'],
      env: { SML_SNAPSHOT_EVERY_BATCHES: '7', SML_SNAPSHOT_EVERY_MS: '400', SML_REQUEST_TIMEOUT_MS: '2000' },
    });
    reader = await SummaryReader.open(sys.nats);
  });
  afterAll(async () => {
    await reader?.close();
    await sys?.stop();
  });

  it('SIGKILL during continuous learning loses no acknowledged batch and doubles none', async () => {
    const sdk = await customer(sys, 'crash');
    expect((await sdk.createProject('p')).status).toBe(201);
    const names = ['a', 'b', 'c', 'd'];
    const batch = (k: number) => ({
      attributeNames: names,
      attributeTypes: ['C', 'C', 'C', 'B'],
      data: Array.from({ length: 50 }, (_, r) => [String((k * 31 + r) % 17 - 8.25), String(Math.sin(k + r) * 1000), (r + k) % 5 === 0 ? 'NA' : String(r * 0.125), String((r * k) % 2)]),
      errorHandling: 0,
    });
    const batches: ReturnType<typeof batch>[] = [];

    let kills = 0;
    let chaosDone = false;
    const chaos = (async () => {
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, 350 + i * 150));
        await sys.kill('projects', 'SIGKILL');
        kills++;
        await new Promise((r) => setTimeout(r, 200));
        await sys.start('projects');
      }
      chaosDone = true;
    })();

    let retries = 0;
    // Learn continuously until the chaos is over, then a few more batches.
    let after = 0;
    for (let k = 0; !chaosDone || after++ < 5; k++) {
      const body = batch(k);
      const key = randomUUID();
      for (let attempt = 0; ; attempt++) {
        const r = await sdk.request('POST', '/projects/p/learn', { json: body, headers: { 'Idempotency-Key': key } }).catch(() => undefined);
        if (r?.status === 200) {
          batches.push(body);
          break;
        }
        expect(r === undefined || r.status === 503).toBe(true);
        expect(attempt).toBeLessThan(200);
        retries++;
        await new Promise((res) => setTimeout(res, 50));
      }
    }
    await chaos;
    expect(kills).toBe(3);
    expect(retries).toBeGreaterThan(0);
    expect(batches.length).toBeGreaterThan(20);
    console.log(`crash test: ${batches.length} batches, ${retries} retries`);

    const expected = new Summary({ histogram: 'streaming' });
    for (const b of batches) expected.learn(b);
    const actual = await reader.full('crash', 'p');
    expect(actual.rowCount).toBe(expected.rowCount);
    expect(actual.attributeNames).toEqual(expected.attributeNames);
    for (const n of names) {
      const [x, y] = [actual.moments(n), expected.moments(n)];
      expect(x.count).toBe(y.count);
      for (const k of ['sum', 'sumSquares', 'sumCubes', 'sumFourths'] as const) expectClose(x[k], y[k]);
      for (const m of names) {
        const [p, q] = [actual.comoments(n, m), expected.comoments(n, m)];
        expect(p.count).toBe(q.count);
        for (const k of ['sumX', 'sumY', 'sumXX', 'sumYY', 'sumXY', 'sumXXYY'] as const) expectClose(p[k], q[k]);
      }
    }
  });
});
