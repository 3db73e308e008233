import { randomUUID } from 'node:crypto';
import { connect } from 'nats';
import { sml } from '@sml/proto';
import { Summary } from '@sml/stats';
import { startSystem, type RunningSystem } from '@sml/testkit';
import { ProjectStore } from '../src/store/store';
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
    const killedAt: number[] = [];
    // Each request's [sent, answered]: a kill must land while one is in flight.
    const spans: Array<[number, number]> = [];
    let chaosDone = false;
    const chaos = (async () => {
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, 350 + i * 150));
        killedAt.push(Date.now());
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
        const sent = Date.now();
        const r = await sdk.request('POST', '/projects/p/learn', { json: body, headers: { 'Idempotency-Key': key } }).catch(() => undefined);
        spans.push([sent, Date.now()]);
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
    // The gateway now resends a learn that met no responders or a dead replica (README
    // "Replicas"), so the client may see no 503 at all: what proves the kills hit the
    // learning is that requests were in flight when they came.
    const hit = killedAt.filter((t) => spans.some(([a, b]) => a <= t && t <= b)).length;
    expect(hit).toBeGreaterThan(0);
    expect(batches.length).toBeGreaterThan(20);
    console.log(`crash test: ${batches.length} batches, ${retries} retries by the client, ${hit} of 3 kills during a request`);

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

  // In a NATS cluster an append whose answer was lost in a leader election can still be stored
  // after the service gave up on it and reloaded the project. Here such an entry is written to
  // the log behind the service's back right after a reload: the service must not append after
  // it without having learned it (its first append after a load names the log's end it read),
  // so memory and log never differ.
  it("a batch stored in the log behind the service's back after a reload is learned before any other is appended", async () => {
    const sdk = await customer(sys, 'straggler');
    expect((await sdk.createProject('p')).status).toBe(201);
    const rows = (x: number) => ({ attributeNames: ['x'], attributeTypes: ['C'], data: [[String(x)], [String(x)]] });
    const learn = async (x: number) => {
      for (let attempt = 0; ; attempt++) {
        const r = await sdk.request('POST', '/projects/p/learn', { json: rows(x) });
        if (r.status === 200) return attempt;
        expect({ status: r.status, attempt }).toEqual({ status: 503, attempt: 0 });
      }
    };
    expect(await learn(1)).toBe(0);
    // Reloaded: the service reads the log's end again (the snapshot of the unload trimmed it).
    expect((await sdk.request('GET', '/projects/p/unload')).status).toBe(200);
    expect((await sdk.request('GET', '/projects/p/info')).status).toBe(200);
    const nc = await connect({ servers: sys.nats.url, ...sys.nats.connectOptions('projects') });
    try {
      const straggler = sml.v1.ProjectLogEntry.encode({ op: 'learn', frame: { attributeNames: ['x'], attributeTypes: ['C'], data: [{ entries: ['10'] }, { entries: ['10'] }] } }).finish();
      await nc.jetstream().publish(`sml.plog.${ProjectStore.key('straggler', 'p')}`, straggler);
    } finally {
      await nc.close();
    }
    // Refused once (503, retryable: the service reloads the project), then learned after the straggler.
    expect(await learn(100)).toBe(1);
    const expectRows = async (when: string) => {
      const s = await reader.full('straggler', 'p');
      expect({ when, rows: s.rowCount, sum: s.moments('x').sum }).toEqual({ when, rows: 6, sum: 2 * (1 + 10 + 100) });
    };
    await expectRows('in memory');
    await sys.kill('projects', 'SIGKILL');
    await sys.start('projects');
    await expectRows('reloaded');
  });
});
