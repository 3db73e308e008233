import type { SmlClient } from '@sml/sdk';
import { newCustomer, sharedSystem } from '@sml/testkit';

// What SML computes approximately is marked so in the answer (docs/concepts.md "What is
// approximate"), by an added key that SymetryML clients do not read: explore's
// `values.approximate` (one key list per map of KSVDMap.values), a density's `approximate`,
// and kmeansOptimize's `values.approximate` (the silhouette). An exact answer has no mark.
describe('approximate results are marked', () => {
  let sdk: SmlClient;

  type Density = Record<string, unknown> & { histogram: number[]; approximate?: string[] };
  const uni = async (pid: string, attributes: string[]) => {
    const r = await sdk.request('POST', `/projects/${pid}/explore`, { query: { metric: 'uni', returnProjectInfo: 'false' }, json: { values: attributes.map((a) => ({ inputAttributeNames: [a], extraParameters: {} })) } });
    expect(r.status).toBe(200);
    return r.body.values as { KSVDMap: { values: Record<string, number>[] }; approximate?: string[][] };
  };
  const density = async (pid: string) => {
    const r = await sdk.request('POST', `/projects/${pid}/densityEstimate`, { json: { values: [{ inputAttributeNames: ['x'], extraParameters: { hist_bins: '7' } }] } });
    expect(r.status).toBe(200);
    return (r.body.values as { densityList: { values: Density[] } }).densityList.values[0];
  };

  // 2 000 distinct values spread over [0, 1000): more than a streaming histogram's 256 bins hold one by one.
  const rows = Array.from({ length: 2000 }, (_, i) => [String((i * 7919) % 2000 / 2), String(i % 2), String(i % 3 === 0 ? 1 : 0)]);
  const frame = { attributeNames: ['x', 'b', 't'], attributeTypes: ['C', 'B', 'B'], data: rows };

  beforeAll(async () => {
    sdk = (await newCustomer(await sharedSystem(), 'approx')).sdk;
    expect((await sdk.createProject('streaming', { enableHistogram: true })).status).toBe(201);
    expect((await sdk.createProject('exact', { enableHistogram: true, histogramType: 'exact' })).status).toBe(201);
    for (const pid of ['streaming', 'exact']) expect((await sdk.learn(pid, frame)).status).toBe(200);
  });
  afterAll(() => sdk?.close());

  it('uni from a streaming histogram marks min, median and max; from an exact histogram nothing', async () => {
    const streaming = await uni('streaming', ['x', 'b']);
    expect(streaming.approximate).toEqual([['min', 'median', 'max'], ['min', 'median', 'max']]);
    // The mark is true to the values: the streaming median is off, within one bin width.
    const exact = await uni('exact', ['x', 'b']);
    expect(exact).not.toHaveProperty('approximate');
    expect(exact.KSVDMap.values[0].median).toBe(499.75);
    expect(streaming.KSVDMap.values[0].median).not.toBe(499.75);
    expect(Math.abs(streaming.KSVDMap.values[0].median - 499.75)).toBeLessThan(8);
    // The exact power sums are the same in both.
    expect(streaming.KSVDMap.values[0].mean).toBe(exact.KSVDMap.values[0].mean);
  });

  it('gain marks a continuous input binned by a streaming histogram, beside an exact binary one', async () => {
    const gain = async (pid: string) => {
      const r = await sdk.request('POST', `/projects/${pid}/explore`, { query: { metric: 'gain', returnProjectInfo: 'false' }, json: { values: [{ inputAttributeNames: ['x', 'b'], targetAttributeNames: ['t'], extraParameters: {} }] } });
      expect(r.status).toBe(200);
      return r.body.values as { KSVDMap: { values: Record<string, number>[] }; approximate?: string[][] };
    };
    expect((await gain('streaming')).approximate).toEqual([['x'], []]);
    expect(await gain('exact')).not.toHaveProperty('approximate');
  });

  it('metrics from the power sums and counts alone carry no mark', async () => {
    const r = await sdk.request('POST', '/projects/streaming/explore', { query: { metric: 'bi', returnProjectInfo: 'false' }, json: { values: [{ inputAttributeNames: ['x', 'b'], extraParameters: {} }] } });
    expect(r.status).toBe(200);
    expect(r.body.values).not.toHaveProperty('approximate');
  });

  it('a density from a streaming histogram marks its bounds and counts; from an exact histogram nothing', async () => {
    const streaming = await density('streaming');
    expect(streaming.approximate).toEqual(['min', 'max', 'width', 'histogram']);
    const exact = await density('exact');
    expect(exact).not.toHaveProperty('approximate');
    expect(exact.histogram.every(Number.isInteger)).toBe(true);
  });

  it('kmeansOptimize marks the silhouette of every k', async () => {
    const blobs = Array.from({ length: 300 }, (_, i) => [String((i % 3) * 10 + Math.sin(i) * 0.5), String(Math.cos(i * 7) * 0.5)]);
    expect((await sdk.createProject('blobs', { params: { cluster_features: 'x1:x2', cluster_num_centroids: '20', cluster_warmup_period: '30' } })).status).toBe(201);
    expect((await sdk.learn('blobs', { attributeNames: ['x1', 'x2'], attributeTypes: ['C', 'C'], data: blobs })).status).toBe(200);
    const started = await sdk.request('POST', '/projects/blobs/kmeansOptimize', { json: { extraParameters: { kmeans_k_min: '2', kmeans_k_max: '4' } } });
    expect(started.status).toBe(202);
    const done = await sdk.waitForJob(started);
    const values = done.body.values as { KSVDMap: { values: Array<{ k: number }> }; approximate: string[][] };
    expect(values.KSVDMap.values.map((s) => s.k)).toEqual([2, 3, 4]);
    expect(values.approximate).toEqual([['silhouette'], ['silhouette'], ['silhouette']]);
  });
});
