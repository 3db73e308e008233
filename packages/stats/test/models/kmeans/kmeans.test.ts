// kmeans and kmeansOptimize on the project's online micro-centroids (STATS.md §4), against
// scikit-learn KMeans / silhouette_score on the same raw points (fixtures/gen_kmeans.py),
// and the laws of the micro-cluster state kept by the Summary (micro-clusters.ts): deterministic,
// chunk-blind, exact through serialize/deserialize (snapshot + replay), bounded, mergeable,
// untouched by forget.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ALGORITHMS, type DataFrame, kmeans, kmeansOptimize, type Model, resolveAttributes, Summary, type SummaryOptions,
} from '@sml/stats';

interface Fixture {
  names: string[];
  rows: string[][];
  k: number;
  inertia: number;
  optimize: Array<{ k: number; wssse: number; silhouette: number }>;
}
const fixture: Fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'kmeans.json'), 'utf8'));
const POINTS = fixture.rows.map((r) => r.map(Number));
const OPTIONS: SummaryOptions = { clusters: { features: fixture.names, centroids: 100, warmup: 101 } };

function frame(rows: string[][]): DataFrame {
  return { attributeNames: fixture.names, attributeTypes: fixture.names.map(() => 'C'), data: rows };
}

function learnInChunks(cuts: number[], options: SummaryOptions = OPTIONS): Summary {
  const s = new Summary(options);
  const ends = [...cuts, fixture.rows.length];
  let from = 0;
  for (const to of ends) {
    if (to > from) s.learn(frame(fixture.rows.slice(from, to)));
    from = to;
  }
  return s;
}

function build(summary: Summary, params: Record<string, string>, inputs: string[] = []): Model {
  return kmeans.build(summary, { algo: 'kmeans', inputs: resolveAttributes(summary, inputs), targets: [], params });
}

/** SSE of the raw points, each at its nearest of `centers` (sklearn's inertia for given centers). */
function inertiaOf(centers: number[][]): number {
  let total = 0;
  for (const x of POINTS) total += Math.min(...centers.map((c) => c.reduce((s, v, k) => s + (x[k] - v) ** 2, 0)));
  return total;
}

const summary = learnInChunks([500, 1000, 1777]);
const model = build(summary, { kmeans_k: String(fixture.k), rnd_seed: '3' });
const centers = JSON.parse(model.extra().centers) as number[][];

describe('kmeans against sklearn KMeans', () => {
  it(`the inertia of SML's ${fixture.k} centers on the raw points is within 2 % of sklearn's`, () => {
    const ratio = inertiaOf(centers) / fixture.inertia;
    expect(Math.abs(ratio - 1)).toBeLessThan(0.02);
  });

  it('modelInfo inertia (micro-clusters assigned whole) is the raw inertia within 2 %', () => {
    expect(Math.abs(Number(model.info().inertia) / inertiaOf(centers) - 1)).toBeLessThan(0.02);
    expect(Number(model.info().n)).toBe(POINTS.length);
  });

  it('predicts the nearest center and the Euclidean distance to it', () => {
    const rows = fixture.rows.slice(0, 50);
    const predictions = model.predict({ names: fixture.names, rows });
    predictions.forEach((p, r) => {
      const x = rows[r].map(Number);
      const d = centers.map((c) => Math.sqrt(c.reduce((s, v, k) => s + (x[k] - v) ** 2, 0)));
      expect(Number(p.cluster)).toBe(d.indexOf(Math.min(...d)));
      expect(Number(p.distance)).toBeCloseTo(Math.min(...d), 12);
    });
    // Each row is compared with every center, input by input: what the service bounds (SML_MAX_PREDICT_STEPS).
    expect(model.predictionSteps!(50)).toBe(50 * centers.length * fixture.names.length);
  });

  it('is deterministic for a rnd_seed; inputs are a subset of cluster_features in any order', () => {
    expect(build(summary, { kmeans_k: '4', rnd_seed: '3' }).state()).toEqual(model.state());
    expect(build(summary, { kmeans_k: '4', rnd_seed: '3' }, ['x3', 'x1', 'x2']).state()).toEqual(model.state());
    const two = build(summary, { kmeans_k: '4' }, ['x2', 'x1']);
    expect(two.inputNames).toEqual(['x1', 'x2']);
  });

  it('is registered; refuses projects without micro-centroids, foreign inputs and k above the micro-centroids', () => {
    expect(ALGORITHMS.kmeans).toBe(kmeans);
    const plain = new Summary();
    plain.learn(frame(fixture.rows.slice(0, 10)));
    expect(() => build(plain, {})).toThrow(/cluster_features/);
    const other = new Summary(OPTIONS);
    other.learn({ attributeNames: [...fixture.names, 'y'], attributeTypes: ['C', 'C', 'C', 'C'], data: [['1', '2', '3', '4']] });
    expect(() => build(other, {}, ['y'])).toThrow(/not one of the project's cluster_features/);
    expect(() => build(summary, { kmeans_k: '101' })).toThrow(/micro-centroids/);
  });
});

describe('kmeansOptimize against sklearn (WSSSE and silhouette per k)', () => {
  const scores = kmeansOptimize(summary, { algo: 'kmeansOptimize', inputs: [], targets: [], params: { rnd_seed: '1' } }, 2, 7);

  // Above the blobs' k, micro-clusters assigned whole cannot split a blob as finely as rows:
  // 2 % up to k = 4, 5 % beyond.
  it('WSSSE per k within 2 % (k ≤ 4) / 5 % (k > 4) of sklearn KMeans inertia', () => {
    expect(scores.map((s) => s.k)).toEqual(fixture.optimize.map((o) => o.k));
    scores.forEach((s, i) => expect(Math.abs(s.wssse / fixture.optimize[i].wssse - 1)).toBeLessThan(s.k <= fixture.k ? 0.02 : 0.05));
  });

  it('silhouette per k within 0.04 of sklearn silhouette_score on the raw points; the best k is the blobs\'', () => {
    scores.forEach((s, i) => expect(Math.abs(s.silhouette - fixture.optimize[i].silhouette)).toBeLessThan(0.04));
    const best = scores.reduce((a, b) => (b.silhouette > a.silhouette ? b : a));
    expect(best.k).toBe(fixture.k);
  });

  it('refuses a range of k outside [2, micro-centroids − 1]', () => {
    const spec = { algo: 'kmeansOptimize', inputs: [], targets: [], params: {} };
    expect(() => kmeansOptimize(summary, spec, 1, 3)).toThrow(/range of k/);
    expect(() => kmeansOptimize(summary, spec, 2, 100)).toThrow(/range of k/);
  });
});

describe('micro-cluster state (micro-clusters.ts)', () => {
  it('is bounded by cluster_num_centroids and counts every complete row', () => {
    const c = summary.clusters!;
    expect(c.isSeeded).toBe(true);
    expect(c.size).toBeLessThanOrEqual(100);
    expect(c.rowCount).toBe(POINTS.length);
  });

  it('does not depend on how the rows were cut into frames', () => {
    const whole = learnInChunks([]);
    const rows = learnInChunks(Array.from({ length: 240 }, (_, i) => (i + 1) * 10));
    expect(whole.clusters!.points()).toEqual(summary.clusters!.points());
    expect(rows.clusters!.points()).toEqual(summary.clusters!.points());
  });

  it('snapshot + replay gives the identical state, in warm-up and after seeding', () => {
    const straight = learnInChunks([]).clusters!.points();
    for (const cut of [50, 101, 1200]) {
      const before = new Summary(OPTIONS);
      before.learn(frame(fixture.rows.slice(0, cut)));
      const reloaded = Summary.deserialize(before.serialize()); // the snapshot…
      reloaded.learn(frame(fixture.rows.slice(cut))); // …then the rest of the log replayed
      expect(reloaded.clusters!.points()).toEqual(straight);
    }
  });

  it('a row missing a feature (or a frame without a feature column) is skipped', () => {
    const s = new Summary(OPTIONS);
    s.learn(frame([['1', '2', ''], ['1', 'NA', '3'], ['1', '2', '3']]));
    s.learn({ attributeNames: ['x1', 'x2'], attributeTypes: ['C', 'C'], data: [['1', '2']] });
    expect(s.clusters!.rowCount).toBe(1);
  });

  it('forget does not apply: micro-clusters stay as they were, the moments are forgotten', () => {
    const s = learnInChunks([]);
    const before = s.clusters!.points();
    s.forget(frame(fixture.rows.slice(0, 300)));
    expect(s.rowCount).toBe(POINTS.length - 300);
    expect(s.clusters!.points()).toEqual(before);
  });

  it('merge of two warming-up summaries is learning one after the other', () => {
    const a = learnInChunks([40]);
    const first = new Summary(OPTIONS);
    first.learn(frame(fixture.rows.slice(0, 40)));
    const second = new Summary(OPTIONS);
    second.learn(frame(fixture.rows.slice(40, 80)));
    first.merge(second);
    const straight = new Summary(OPTIONS);
    straight.learn(frame(fixture.rows.slice(0, 80)));
    expect(first.clusters!.points()).toEqual(straight.clusters!.points());
    expect(a.clusters!.isSeeded).toBe(true);
  });

  it('merge of seeded summaries keeps at most cluster_num_centroids, every row, and the kmeans accuracy', () => {
    const left = new Summary(OPTIONS);
    left.learn(frame(fixture.rows.slice(0, 1200)));
    const right = new Summary(OPTIONS);
    right.learn(frame(fixture.rows.slice(1200)));
    left.merge(right);
    expect(left.clusters!.size).toBeLessThanOrEqual(100);
    expect(left.clusters!.rowCount).toBe(POINTS.length);
    const merged = JSON.parse(build(left, { kmeans_k: '4', rnd_seed: '3' }).extra().centers) as number[][];
    expect(Math.abs(inertiaOf(merged) / fixture.inertia - 1)).toBeLessThan(0.02);
  });

  it('options are checked: warm-up above the centroids, features named once, a bounded state', () => {
    const bad = (clusters: NonNullable<SummaryOptions['clusters']>) => () => new Summary({ clusters });
    expect(bad({ features: ['a'], centroids: 100, warmup: 100 })).toThrow(/greater than cluster_num_centroids/);
    expect(bad({ features: ['a', 'a'], centroids: 10, warmup: 11 })).toThrow(/twice/);
    expect(bad({ features: [], centroids: 10, warmup: 11 })).toThrow(/at least one/);
    expect(bad({ features: ['a', 'b'], centroids: 10, warmup: 1_000_000 })).toThrow(/over the limit/);
  });
});
