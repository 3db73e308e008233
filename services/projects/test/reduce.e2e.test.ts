import type { SmlClient } from '@sml/sdk';
import { newCustomer, sharedSystem, startSystem, type RunningSystem } from '@sml/testkit';
import { customer } from './helpers';

// POST projects/{p}/reduce through the gateway: the job, the stored model, the 400s.

type Info = { algo: string; inputAttributeNames: string[]; info: Record<string, string>; extra: Record<string, string> };

/** y depends on x1, x2 (and a little on x3); x4, x5 are noise. label = y above its middle. */
function rows(n: number): string[][] {
  return Array.from({ length: n }, (_, i) => {
    const x = [Math.sin(i * 1.3), Math.cos(i * 0.7), Math.sin(i * 2.9 + 1), Math.sin(i * 5.1 + 2), Math.cos(i * 3.7 + 0.5)];
    const y = 1 + 2 * x[0] - 1.5 * x[1] + 0.4 * x[2] + 0.3 * Math.sin(i * 11.3);
    return [...x, y, y > 1 ? 1 : 0].map((v) => String(Math.round(v * 1e6) / 1e6));
  });
}
const NAMES = ['x1', 'x2', 'x3', 'x4', 'x5', 'y', 'label'];
const TYPES = ['C', 'C', 'C', 'C', 'C', 'C', 'B'];
const INPUTS = ['x1', 'x2', 'x3', 'x4', 'x5'];

describe('reduce end to end', () => {
  let sdk: SmlClient;
  const finished = async (r: Awaited<ReturnType<SmlClient['request']>>) => {
    expect(r.status).toBe(202);
    const done = await sdk.waitForJob<{ modelInfo: Info }>(r, { timeoutMs: 60_000 });
    expect({ status: done.status, message: done.body.statusString }).toEqual({ status: 200, message: 'Job is finished' });
    return done.body.values!.modelInfo;
  };
  const reduce = (query: Record<string, string>, target = 'y') =>
    sdk.request('POST', '/projects/p/reduce', { query, json: { inputAttributeNames: INPUTS, targetAttributeNames: [target], extraParameters: {} } });

  beforeAll(async () => {
    sdk = (await newCustomer(await sharedSystem(), 'reduce')).sdk;
    expect((await sdk.createProject('p')).status).toBe(201);
    expect((await sdk.learn('p', { attributeNames: NAMES, attributeTypes: TYPES, data: rows(400) })).status).toBe(200);
  }, 120_000);
  afterAll(() => sdk?.close());

  it.each([
    { algo: 'mlr', target: 'y', criterion: 'adj_r2' },
    { algo: 'lda', target: 'label', criterion: 'mahalanobis' },
  ])('$algo: a reduce job keeps the informative inputs and stores the model a build on them gives', async ({ algo, target, criterion }) => {
    const r = await reduce({ modelid: `r_${algo}`, algo, delta: '0.01' }, target);
    expect(r.body.statusString).toBe('Reduce Job Created');
    expect(r.headers['sym-job-id']).toBeDefined();
    const m = await finished(r);
    expect(m.algo).toBe(algo);
    expect(m.inputAttributeNames).toEqual(expect.arrayContaining(['x1', 'x2']));
    expect(m.inputAttributeNames).not.toEqual(expect.arrayContaining(['x4', 'x5']));
    const dropped = JSON.parse(m.extra.reduce_dropped) as string[];
    expect([...m.inputAttributeNames, ...dropped].sort()).toEqual(INPUTS);
    expect(m.info).toMatchObject({ reduce_delta: '0.01', reduce_num_iterations: '5' });
    const value = Number(m.info[criterion]);
    expect(Number(m.info.reduce_criterion)).toBe(algo === 'lda' ? value ** 2 : value);
    // The stored model is the build on the surviving inputs.
    const built = await finished(await sdk.request('POST', '/projects/p/build', {
      query: { modelid: `b_${algo}`, algo }, json: { inputAttributeNames: m.inputAttributeNames, targetAttributeNames: [target], extraParameters: {} },
    }));
    const { reduce_dropped: _, ...extra } = m.extra;
    expect(extra).toEqual(built.extra);
    const stored = await sdk.request<{ modelInfo: Info }>('GET', `/projects/p/models/r_${algo}`);
    expect(stored.body.values!.modelInfo.inputAttributeNames).toEqual(m.inputAttributeNames);
  }, 120_000);

  it('the job is listed with jobType reduce', async () => {
    const r = await reduce({ modelid: 'listed', algo: 'mlr' });
    await finished(r);
    const listed = (await sdk.listJobs()).body.values?.jobinfolist.find((j) => String(j.jobId) === r.headers['sym-job-id']);
    expect(listed?.jobType).toBe('reduce');
  }, 60_000);

  it.each<{ query: Record<string, string>; message: string | RegExp }>([
    { query: { modelid: 'm', algo: 'mlr', heuristic: 'greedy' }, message: 'Unknown heuristic [greedy]' },
    { query: { modelid: 'm', algo: 'ridge' }, message: 'Reduce does not support algorithm [ridge]' },
    { query: { modelid: 'm' }, message: 'Reduce does not support algorithm []' },
    { query: { modelid: 'm', algo: 'mlr', delta: '-1' }, message: /delta/ },
    { query: { modelid: 'm', algo: 'mlr', numIterations: 'many' }, message: /numIterations/ },
  ])('answers 400 naming the bad input: $query', async ({ query, message }) => {
    const r = await reduce(query);
    expect(r.status).toBe(400);
    expect(r.body.statusString).toMatch(message);
  });

  it('answers 400 for an unknown project before any job', async () => {
    const r = await sdk.request('POST', '/projects/nope/reduce', { query: { modelid: 'm', algo: 'mlr' }, json: { inputAttributeNames: INPUTS, targetAttributeNames: ['y'] } });
    expect(r.status).toBe(400);
    expect(r.headers['sym-job-id']).toBeUndefined();
  });
});

describe('reduce with a full job queue', () => {
  let sys: RunningSystem;
  afterAll(() => sys?.stop());

  it('answers SymetryML\'s 500 Optimize Job execution was refused by server., not 503', async () => {
    sys = await startSystem({ services: ['users', 'jobs', 'projects'], env: { SML_EXECUTOR_CONCURRENCY: '1', SML_EXECUTOR_QUEUE: '0' } });
    const sdk = await customer(sys, 'crowded');
    expect((await sdk.createProject('p')).status).toBe(201);
    expect((await sdk.learn('p', { attributeNames: NAMES, attributeTypes: TYPES, data: rows(400) })).status).toBe(200);
    const body = { inputAttributeNames: INPUTS, targetAttributeNames: ['y'], extraParameters: {} };
    const answers = await Promise.all(Array.from({ length: 6 }, (_, k) => sdk.request('POST', '/projects/p/reduce', { query: { modelid: `m${k}`, algo: 'mlr' }, json: body })));
    const refused = answers.filter((r) => r.status !== 202);
    expect(answers.length - refused.length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const r of refused) expect({ status: r.status, message: r.body.statusString }).toEqual({ status: 500, message: 'Optimize Job execution was refused by server.' });
  }, 120_000);
});
