import { generateSecret } from '@sml/core';
import { RequestTimeoutError, retryDelay, SmlClient, type HttpAnswer, type HttpExchange, type JobProgress, type RetryEvent, type SmlClientOptions } from '@sml/sdk';

// Timeouts, retries and Idempotency-Key (client.ts) against an in-process fake transport: no socket.

const answer = (status: number, values: unknown = {}, headers: Record<string, string> = {}): HttpAnswer =>
  ({ status, headers, text: JSON.stringify({ statusCode: status, statusString: status === 200 ? 'OK' : 'Unavailable', values }) });

/** A client whose exchanges are answered, in order, by `answers` (the last one repeats); every exchange is kept. */
function fakeClient(answers: Array<HttpAnswer | ((ex: HttpExchange) => Promise<HttpAnswer>)>, options: Partial<SmlClientOptions> = {}) {
  const sent: HttpExchange[] = [];
  const client = new SmlClient({
    url: 'http://gateway.invalid', user: 'c1', secret: generateSecret(),
    transport: (ex) => {
      const next = answers[Math.min(sent.length, answers.length - 1)];
      sent.push(ex);
      return typeof next === 'function' ? next(ex) : Promise.resolve(next);
    },
    ...options,
  });
  return { client, sent };
}

/** A transport answer that never comes: it rejects only when the exchange is aborted. */
const never = (ex: HttpExchange) => new Promise<HttpAnswer>((_resolve, reject) => ex.signal.addEventListener('abort', () => reject(ex.signal.reason as Error)));

describe('retries on 503 and 429', () => {
  it('a 503 then a 429 are sent again, signed anew each time, with one Idempotency-Key for the call', async () => {
    const events: RetryEvent[] = [];
    const { client, sent } = fakeClient([answer(503, {}, { 'retry-after': '0' }), answer(429), answer(200, { ok: 1 })], { retry: { baseDelayMs: 1, onRetry: (e) => events.push(e) } });
    const res = await client.learn('p1', { attributeNames: ['a'], attributeTypes: ['C'], data: [['1']] }, { idempotencyKey: true });
    expect(res.status).toBe(200);
    expect(sent).toHaveLength(3);
    const keys = sent.map((e) => e.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(new Set(sent.map((e) => e.headers['sym-date'])).size).toBe(3);
    expect(events.map((e) => [e.retry, e.status, e.method, e.path])).toEqual([[1, 503, 'POST', '/symetry/rest/c1/projects/p1/learn'], [2, 429, 'POST', '/symetry/rest/c1/projects/p1/learn']]);
    expect(events[0].delayMs).toBe(0); // Retry-After: 0
  });

  it('bounded: after `retries` retries the last 503 is the answer; other errors are not retried', async () => {
    const bounded = fakeClient([answer(503)], { retry: { retries: 2, baseDelayMs: 1 } });
    expect((await bounded.client.listProjects()).status).toBe(503);
    expect(bounded.sent).toHaveLength(3);
    const serverError = fakeClient([answer(500), answer(200)], { retry: { baseDelayMs: 1 } });
    expect((await serverError.client.listProjects()).status).toBe(500);
    expect(serverError.sent).toHaveLength(1);
  });

  it('by default a 503 is answered as it came: retries are opt-in', async () => {
    const { client, sent } = fakeClient([answer(503, {}, { 'retry-after': '0' }), answer(200)]);
    expect((await client.listProjects()).status).toBe(503);
    expect(sent).toHaveLength(1);
  });

  it('a per-call retry: false answers the first 503', async () => {
    const { client, sent } = fakeClient([answer(503), answer(200)], { retry: {} });
    expect((await client.operations.listProjects({ retry: false })).status).toBe(503);
    expect(sent).toHaveLength(1);
  });

  it('a wait that would outlast the call\'s timeout answers the 503 instead', async () => {
    const { client, sent } = fakeClient([answer(503, {}, { 'retry-after': '5' }), answer(200)], { timeoutMs: 1_000, retry: {} });
    const started = Date.now();
    expect((await client.listProjects()).status).toBe(503);
    expect(sent).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(500);
  });
});

describe('retryDelay', () => {
  it('honours Retry-After in seconds or as an HTTP date, capped at maxDelayMs', () => {
    expect(retryDelay('2', 0, {})).toBe(2_000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryDelay('Thu, 01 Jan 2026 00:00:03 GMT', 0, {}, now)).toBe(3_000);
    expect(retryDelay('Wed, 31 Dec 2025 00:00:00 GMT', 0, {}, now)).toBe(0);
    expect(retryDelay('120', 0, { maxDelayMs: 5_000 })).toBe(5_000);
  });

  it('without Retry-After: doubling backoff with equal jitter (between half and all of it)', () => {
    expect(retryDelay(undefined, 0, { baseDelayMs: 100 }, 0, () => 0)).toBe(50);
    expect(retryDelay(undefined, 0, { baseDelayMs: 100 }, 0, () => 1)).toBe(100);
    expect(retryDelay(undefined, 3, { baseDelayMs: 100 }, 0, () => 0.5)).toBe(600);
    expect(retryDelay('soon', 1, { baseDelayMs: 100, maxDelayMs: 150 }, 0, () => 1)).toBe(150);
  });
});

describe('Idempotency-Key', () => {
  it('none by default; a client with idempotencyKeys keys each write with a new key, never a GET', async () => {
    const plain = fakeClient([answer(200)]);
    await plain.client.createProject('p1');
    expect(plain.sent[0].headers['idempotency-key']).toBeUndefined();
    const keyed = fakeClient([answer(200)], { idempotencyKeys: true });
    await keyed.client.createProject('p1');
    await keyed.client.createProject('p2');
    await keyed.client.listProjects();
    const [a, b, get] = keyed.sent.map((e) => e.headers['idempotency-key']);
    expect(a).toBeDefined();
    expect(b).toBeDefined();
    expect(a).not.toBe(b);
    expect(get).toBeUndefined();
  });

  it('a call\'s own key is sent as given; false sends none even on a keyed client', async () => {
    const { client, sent } = fakeClient([answer(200)], { idempotencyKeys: true });
    await client.operations.learnProject('p1', { json: { attributeNames: [], attributeTypes: [], data: [] }, idempotencyKey: 'batch-17' });
    await client.operations.learnProject('p1', { json: { attributeNames: [], attributeTypes: [], data: [] }, idempotencyKey: false });
    expect(sent.map((e) => e.headers['idempotency-key'])).toEqual(['batch-17', undefined]);
  });
});

describe('timeouts and abort', () => {
  it('a call past the client\'s timeoutMs rejects with RequestTimeoutError and aborts its exchange', async () => {
    const { client, sent } = fakeClient([never], { timeoutMs: 50 });
    await expect(client.listProjects()).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(sent[0].signal.aborted).toBe(true);
  });

  it('a call\'s timeoutMs replaces the client\'s', async () => {
    const { client } = fakeClient([never], { timeoutMs: 60_000 });
    const started = Date.now();
    await expect(client.operations.listProjects({ timeoutMs: 30 })).rejects.toThrow(/did not finish within 30 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('the caller\'s AbortSignal aborts the exchange and the retry waits, rejecting with its reason', async () => {
    const inFlight = fakeClient([never]);
    const controller = new AbortController();
    const call = inFlight.client.operations.listProjects({ signal: controller.signal });
    controller.abort(new Error('user gave up'));
    await expect(call).rejects.toThrow('user gave up');
    const waiting = fakeClient([answer(503, {}, { 'retry-after': '20' })], { retry: {} });
    const during = new AbortController();
    const retried = waiting.client.operations.listProjects({ signal: during.signal });
    setTimeout(() => during.abort(new Error('stop waiting')), 20);
    await expect(retried).rejects.toThrow('stop waiting');
    expect(waiting.sent).toHaveLength(1);
  });
});

describe('waitForJob progress', () => {
  const running = (current: number, maximum: number) => answer(202, { jobinfo: { jobId: 7, jobType: 'learnds', owner: 'c1', startingDate: 0, maximum, current, isOnBoundedExecutor: false, isStarted: true, isDone: false, details: {} } });

  it('onProgress sees done/total/percent while the job runs, then 100 % once it succeeded', async () => {
    const { client } = fakeClient([running(0, 0), running(1, 4), running(3, 4), answer(200, { result: 1 })]);
    const seen: JobProgress[] = [];
    const res = await client.waitForJob('7', { intervalMs: 1, onProgress: (p) => seen.push(p) });
    expect(res.status).toBe(200);
    expect(seen.map((p) => [p.jobId, p.done, p.total, p.percent])).toEqual([['7', 0, 0, undefined], ['7', 1, 4, 25], ['7', 3, 4, 75], ['7', 4, 4, 100]]);
  });

  it('no 100 % for a job that failed', async () => {
    const { client } = fakeClient([running(1, 2), answer(500)]);
    const seen: JobProgress[] = [];
    expect((await client.waitForJob('7', { intervalMs: 1, onProgress: (p) => seen.push(p) })).status).toBe(500);
    expect(seen.map((p) => p.percent)).toEqual([50]);
  });
});

describe('model shorthands', () => {
  it('buildModel, modelInfo and predict send their route\'s method, path, query and body', async () => {
    const { client, sent } = fakeClient([answer(200)]);
    const frame = { attributeNames: ['x'], attributeTypes: ['C'], data: [['1']] };
    await client.buildModel('p 1', 'm1', 'mlr', { targetAttributeNames: ['y'] }, { idempotencyKey: 'k' });
    await client.modelInfo('p 1', 'm1');
    await client.predict('p 1', 'm1', frame);
    expect(sent.map((e) => [e.method, e.url.pathname, e.url.search, e.body && Buffer.from(e.body).toString('utf8'), e.headers['idempotency-key']])).toEqual([
      ['POST', '/symetry/rest/c1/projects/p%201/build', '?modelid=m1&algo=mlr', '{"targetAttributeNames":["y"]}', 'k'],
      ['GET', '/symetry/rest/c1/projects/p%201/models/m1', '', undefined, undefined],
      ['POST', '/symetry/rest/c1/projects/p%201/predict/m1', '', JSON.stringify(frame), undefined],
    ]);
  });
});
