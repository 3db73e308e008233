import { SmlClient } from '@sml/sdk';
import { newCustomer, sharedSystem } from '@sml/testkit';
import { frame } from './helpers';

// kmeans and kmeansOptimize through the gateway (issue 13): a project created with cluster_*
// parameters keeps online micro-centroids while it learns; kmeans is built from them and
// predicts `cluster` and `distance`; the micro-centroids are part of the project's persisted
// summary, so an unload (snapshot) and reload gives the same model and the same predictions.
// Accuracy against scikit-learn is checked in packages/stats/test/models/kmeans.

describe('kmeans end to end', () => {
  let sdk: SmlClient;

  // Three blobs in the plane, centred at (0, 0), (10, 0) and (0, 10), with a little spread.
  const CENTERS = [[0, 0], [10, 0], [0, 10]];
  const rows = Array.from({ length: 600 }, (_, i) => {
    const [cx, cy] = CENTERS[i % 3];
    return [cx + Math.sin(i * 12.9898) * 1.2, cy + Math.cos(i * 78.233) * 1.2, i % 7];
  });
  const names = ['x1', 'x2', 'other'];
  const types = ['C', 'C', 'C'];
  const probe = frame(['x1', 'x2'], ['C', 'C'], [[0.2, -0.1], [9.5, 0.4], [0.3, 10.8], [5, 5]]);

  const job = async (r: { status: number }) => {
    expect(r.status).toBe(202);
    const done = await sdk.waitForJob(r as Parameters<SmlClient['waitForJob']>[0]);
    expect({ status: done.status, message: done.body.statusString }).toEqual({ status: 200, message: 'Job is finished' });
    return done.body.values as Record<string, unknown>;
  };
  const predict = async (modelid: string) => {
    const r = await sdk.request('POST', `/projects/blobs/predict/${modelid}`, { json: probe });
    expect(r.status).toBe(200);
    return (r.body.values as { KSVSMap: { values: Array<Record<string, string>> } }).KSVSMap.values;
  };

  beforeAll(async () => {
    sdk = (await newCustomer(await sharedSystem(), 'clusterer')).sdk;
  });
  afterAll(() => sdk?.close());

  it('create checks the cluster_* parameters: the seed\'s 500 for a warm-up not above the centroids, 400 without cluster_features', async () => {
    const bad = await sdk.request('POST', '/projects', { query: { pid: 'k1' }, json: { cluster_features: 'x1:x2', cluster_num_centroids: '50', cluster_warmup_period: '50' } });
    expect(bad.status).toBe(500);
    const none = await sdk.request('POST', '/projects', { query: { pid: 'k2' }, json: { cluster_num_centroids: '50' } });
    expect(none.status).toBe(400);
    expect(none.body.statusString).toContain('cluster_features');
  });

  it('learns micro-centroids, builds kmeans, predicts cluster and distance; an unload and reload predicts the same', async () => {
    const created = await sdk.createProject('blobs', { params: { cluster_features: 'x1:x2', cluster_num_centroids: '30', cluster_warmup_period: '50' } });
    expect(created.status).toBe(201);
    for (let b = 0; b < 3; b++) expect((await sdk.learn('blobs', frame(names, types, rows.slice(b * 200, (b + 1) * 200)))).status).toBe(200);

    const built = await job(await sdk.request('POST', '/projects/blobs/build', { query: { modelid: 'km', algo: 'kmeans' }, json: { extraParameters: { kmeans_k: '3', rnd_seed: '7' } } }));
    const info = (built.modelInfo as { info: Record<string, string>; inputAttributeNames: string[] });
    expect(info.inputAttributeNames).toEqual(['x1', 'x2']);
    expect(info.info.n).toBe('600');
    const before = await predict('km');
    // The three blob points fall in three different clusters, each near its center.
    expect(new Set(before.slice(0, 3).map((p) => p.cluster)).size).toBe(3);
    for (const p of before.slice(0, 3)) expect(Number(p.distance)).toBeLessThan(1.5);
    expect(Object.keys(before[3]).sort()).toEqual(['cluster', 'distance']);

    expect((await sdk.request('GET', '/projects/blobs/unload')).status).toBe(200);
    expect(await predict('km')).toEqual(before);
    // Rebuilt from the reloaded summary (snapshot + log): the same micro-centroids, the same model.
    await job(await sdk.request('POST', '/projects/blobs/build', { query: { modelid: 'km2', algo: 'kmeans' }, json: { extraParameters: { kmeans_k: '3', rnd_seed: '7' } } }));
    expect(await predict('km2')).toEqual(before);
  });

  it('kmeansOptimize answers WSSSE and silhouette per k; the blobs\' k has the best silhouette', async () => {
    const values = await job(await sdk.request('POST', '/projects/blobs/kmeansOptimize', { json: { extraParameters: { kmeans_k_min: '2', kmeans_k_max: '6' } } }));
    const scores = (values.KSVDMap as { values: Array<{ k: number; wssse: number; silhouette: number }> }).values;
    expect(scores.map((s) => s.k)).toEqual([2, 3, 4, 5, 6]);
    for (let i = 1; i < scores.length; i++) expect(scores[i].wssse).toBeLessThan(scores[i - 1].wssse);
    const best = scores.reduce((a, b) => (b.silhouette > a.silhouette ? b : a));
    expect(best.k).toBe(3);
    const bad = await sdk.request('POST', '/projects/blobs/kmeansOptimize', { json: { extraParameters: { kmeans_k_min: '2', kmeans_k_max: '100' } } });
    const failed = bad.status === 202 ? await sdk.waitForJob(bad).catch((e: unknown) => e) : bad;
    expect(JSON.stringify((failed as { body?: unknown }).body ?? failed)).toContain('range of k');
  });
});
