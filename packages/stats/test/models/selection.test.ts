// Reference: fixtures/gen_selection.py fits every input subset independently (numpy least
// squares for mlr, scikit-learn LinearDiscriminantAnalysis for lda and mlda), scores it on
// the validation rows with scikit-learn's metrics and runs brute, fw_bw and simple from their
// definitions; selectFeatures must choose the same subsets with the same scores.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALGORITHMS, assess, ModelInputError, type ModelSpec, type PredictFrame, resolveAttributes, Summary } from '@sml/stats';
import { checkSelection, selectFeatures, type SelectorType } from '../../src/models/selection';
import { expectClose } from '../helpers';

interface Case {
  algo: string;
  inputs: string[];
  targets: string[];
  names: string[];
  train: string[][];
  valid: string[][];
  expected: Record<string, Record<string, { inputs: string[]; score: number; all: Record<string, number> }>>;
}
const fixture: Record<'regression' | 'binary' | 'multiclass', Case> = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'selection.json'), 'utf8'));

function setup(c: Case) {
  const summary = new Summary();
  const types = c.names.map((n) => (c.inputs.includes(n) || c.algo === 'mlr' ? 'C' : 'B'));
  summary.learn({ attributeNames: c.names, attributeTypes: types, data: c.train });
  const spec: ModelSpec = { algo: c.algo, inputs: resolveAttributes(summary, c.inputs), targets: resolveAttributes(summary, c.targets), params: {} };
  const frame: PredictFrame = { names: c.names, rows: c.valid };
  return { summary, spec, frame, algorithm: ALGORITHMS[c.algo] };
}

const names = (summary: Summary, inputs: number[]) => inputs.map((i) => summary.attributeNames[i]);

describe.each(Object.keys(fixture) as Array<keyof typeof fixture>)('%s: the selected subset equals the reference', (task) => {
  const c = fixture[task];
  const { summary, spec, frame, algorithm } = setup(c);
  const cases = Object.entries(c.expected).flatMap(([criterion, bySelector]) => Object.entries(bySelector).map(([selector, want]) => ({ criterion, selector, want })));

  it.each(cases)(`${c.algo} selector_type_$selector by $criterion`, async ({ criterion, selector, want }) => {
    const got = await selectFeatures(algorithm, summary, spec, frame, { selector: `selector_type_${selector}` as SelectorType, criterion });
    expect(names(summary, got.inputs)).toEqual(want.inputs);
    expect(got.model.inputNames).toEqual(want.inputs);
    expect(got.criterion).toBe(criterion);
    expectClose(got.assessment[criterion], want.score, 1e-9, 1, criterion);
    for (const [metric, value] of Object.entries(want.all)) {
      // assess says NaN where scikit-learn's mcc says 0 (one class predicted); never chosen here.
      if (!Number.isNaN(got.assessment[metric])) expectClose(got.assessment[metric], value, 1e-9, 1, metric);
    }
  });
});

describe('selectFeatures', () => {
  const { summary, spec, frame, algorithm } = setup(fixture.regression);
  const brute = fixture.regression.expected.rmse.brute;

  it('selector_type_none builds the given inputs once and assesses them', async () => {
    const got = await selectFeatures(algorithm, summary, spec, frame, { selector: 'selector_type_none' });
    expect(got.inputs).toEqual(spec.inputs);
    expect(got.tried).toBe(1);
    expect(got.criterion).toBe('rmse');
    expect(got.assessment).toEqual(assess('regression', algorithm.build(summary, spec), frame));
  });

  it('the default criterion is rmse for regression, auc for binary, accuracy for multiclass', () => {
    expect(checkSelection(ALGORITHMS.mlr, { selector: 'selector_type_none' }).criterion).toBe('rmse');
    expect(checkSelection(ALGORITHMS.lr, { selector: 'selector_type_none' }).criterion).toBe('auc');
    expect(checkSelection(ALGORITHMS.mlda, { selector: 'selector_type_none' }).criterion).toBe('accuracy');
    expect(checkSelection(ALGORITHMS.mlr, { selector: 'selector_type_brute', criterion: '' }).criterion).toBe('rmse');
  });

  it('brute scores every non-empty subset once; fw_bw and simple fewer', async () => {
    expect((await selectFeatures(algorithm, summary, spec, frame, { selector: 'selector_type_brute' })).tried).toBe(2 ** 8 - 1);
    expect((await selectFeatures(algorithm, summary, spec, frame, { selector: 'selector_type_fw_bw' })).tried).toBeLessThan(2 ** 8 - 1);
    expect((await selectFeatures(algorithm, summary, spec, frame, { selector: 'selector_type_simple' })).tried).toBeLessThanOrEqual(8 + 7);
  });

  it('selector_type_iteration: the same seed gives the same result, never better than brute', async () => {
    const run = (seed?: number, iterations?: number) => selectFeatures(algorithm, summary, spec, frame, { selector: 'selector_type_iteration', seed, iterations });
    const a = await run(42);
    const b = await run(42);
    expect([b.inputs, b.assessment, b.tried]).toEqual([a.inputs, a.assessment, a.tried]);
    expect(a.tried).toBeLessThanOrEqual(50);
    expect(a.assessment.rmse).toBeGreaterThanOrEqual(brute.score - 1e-12);
    expect((await run()).inputs).toEqual((await run(1)).inputs);
    expect((await run(7, 5)).tried).toBeLessThanOrEqual(5);
    // Enough draws to meet every one of the 255 subsets finds the brute-force optimum.
    expect(names(summary, (await run(3, 5000)).inputs)).toEqual(brute.inputs);
    const seeds: string[] = [];
    for (const seed of [1, 2, 3, 4, 5]) seeds.push(JSON.stringify((await run(seed, 4)).inputs));
    expect(new Set(seeds).size).toBeGreaterThan(1);
  });

  it('selector_type_brute refuses more than 16 inputs before building anything', async () => {
    const wide = new Summary();
    const columns = Array.from({ length: 18 }, (_, k) => `c${k}`);
    wide.learn({ attributeNames: columns, attributeTypes: columns.map(() => 'C'), data: Array.from({ length: 40 }, (_, r) => columns.map((_, k) => String(Math.sin(r * (k + 1)) + k))) });
    const wideSpec = { algo: 'mlr', inputs: Array.from({ length: 17 }, (_, k) => k), targets: [17], params: {} };
    const build = jest.fn(ALGORITHMS.mlr.build);
    const counting = { ...ALGORITHMS.mlr, build };
    await expect(selectFeatures(counting, wide, wideSpec, { names: columns, rows: [] }, { selector: 'selector_type_brute' }))
      .rejects.toThrow(new ModelInputError('selector_type_brute supports at most 16 inputs, got 17'));
    expect(build).not.toHaveBeenCalled();
  });

  it('an unknown criterion, or one of another task, is a ModelInputError naming it', async () => {
    await expect(selectFeatures(algorithm, summary, spec, frame, { selector: 'selector_type_fw_bw', criterion: 'rsme' })).rejects.toThrow(ModelInputError);
    await expect(selectFeatures(algorithm, summary, spec, frame, { selector: 'selector_type_fw_bw', criterion: 'rsme' })).rejects.toThrow(/\[rsme\].*rmse, mae, r2/);
    await expect(selectFeatures(algorithm, summary, spec, frame, { selector: 'selector_type_none', criterion: 'auc' })).rejects.toThrow(/unknown sml_model_assessment_type \[auc\] for a regression model/);
    expect(() => checkSelection(ALGORITHMS.lda, { selector: 'selector_type_none', criterion: 'kappa' })).toThrow(/\[kappa\].*auc, accuracy, precision, recall, f1, mcc/);
  });

  it('an unknown selector, bad iterations or seed are ModelInputErrors', () => {
    expect(() => checkSelection(algorithm, { selector: 'selector_type_random' as SelectorType })).toThrow(/unknown selector_type \[selector_type_random\]/);
    expect(() => checkSelection(algorithm, { selector: 'selector_type_iteration', iterations: 0 })).toThrow(/selector_iterations must be an integer ≥ 1, got 0/);
    expect(() => checkSelection(algorithm, { selector: 'selector_type_iteration', iterations: 2.5 })).toThrow(ModelInputError);
    expect(() => checkSelection(algorithm, { selector: 'selector_type_iteration', seed: NaN })).toThrow(/seed must be an integer/);
  });

  it('anomaly detectors only take selector_type_none, and no criterion', async () => {
    const covest = ALGORITHMS.covest;
    const anomalySpec = { ...spec, algo: 'covest', targets: [] };
    const none = await selectFeatures(covest, summary, anomalySpec, frame, { selector: 'selector_type_none' });
    expect([none.inputs, none.assessment, none.criterion]).toEqual([spec.inputs, {}, undefined]);
    await expect(selectFeatures(covest, summary, anomalySpec, frame, { selector: 'selector_type_fw_bw' })).rejects.toThrow(/selector_type_fw_bw needs an assessment .* covest is an anomaly model: use selector_type_none/);
    await expect(selectFeatures(covest, summary, anomalySpec, frame, { selector: 'selector_type_none', criterion: 'rmse' })).rejects.toThrow(/covest is an anomaly model and has no assessment criterion; got sml_model_assessment_type \[rmse\]/);
  });

  it('a frame without target values cannot rank subsets', async () => {
    const noTarget = { names: fixture.regression.inputs, rows: fixture.regression.valid.map((r) => r.slice(0, 8)) };
    await expect(selectFeatures(algorithm, summary, spec, noTarget, { selector: 'selector_type_simple' })).rejects.toThrow(/no row with a value of the target \[y\]/);
    expect((await selectFeatures(algorithm, summary, spec, noTarget, { selector: 'selector_type_none' })).assessment.n).toBe(0);
  });

  describe('failing builds', () => {
    // c = a + 2b exactly: every subset holding a, b and c is singular.
    const s = new Summary();
    const rows = Array.from({ length: 30 }, (_, i) => [i, i % 3, i + 2 * (i % 3), (i * 7) % 5, 3 * i - (i % 3) + 0.25 * ((i * 7) % 5) + Math.sin(i)].map(String));
    s.learn({ attributeNames: ['a', 'b', 'c', 'd', 'y'], attributeTypes: ['C', 'C', 'C', 'C', 'C'], data: rows });
    const f = { names: ['a', 'b', 'c', 'd', 'y'], rows };
    const sSpec = { algo: 'mlr', inputs: [0, 1, 2, 3], targets: [4], params: {} };

    it.each(['selector_type_brute', 'selector_type_fw_bw', 'selector_type_simple', 'selector_type_iteration'] as SelectorType[])('%s skips singular subsets', async (selector) => {
      const got = await selectFeatures(ALGORITHMS.mlr, s, sSpec, f, { selector, iterations: 200 });
      expect(got.inputs.filter((i) => i <= 2)).not.toHaveLength(3);
      expect(got.assessment.rmse).toBeGreaterThan(0);
    });

    it('brute picks the best buildable subset, as enumerating them by hand does', async () => {
      let best = { rmse: Infinity, inputs: [] as number[] };
      let failures = 0;
      for (let mask = 1; mask < 16; mask++) {
        const inputs = [0, 1, 2, 3].filter((k) => mask & (1 << k));
        try {
          const rmse = assess('regression', ALGORITHMS.mlr.build(s, { ...sSpec, inputs }), f).rmse;
          if (rmse < best.rmse || (rmse === best.rmse && inputs.length < best.inputs.length)) best = { rmse, inputs };
        } catch (err) {
          expect(err).toBeInstanceOf(ModelInputError);
          failures++;
        }
      }
      expect(failures).toBeGreaterThan(0);
      const got = await selectFeatures(ALGORITHMS.mlr, s, sSpec, f, { selector: 'selector_type_brute' });
      expect([got.inputs, got.assessment.rmse, got.tried]).toEqual([best.inputs, best.rmse, 15]);
    });

    it('when no subset builds, the last failure is thrown', async () => {
      await expect(selectFeatures(ALGORITHMS.mlr, s, { ...sSpec, targets: [] }, f, { selector: 'selector_type_fw_bw' })).rejects.toThrow(/mlr needs exactly one target attribute, got 0/);
      await expect(selectFeatures(ALGORITHMS.mlr, s, { ...sSpec, targets: [] }, f, { selector: 'selector_type_brute' })).rejects.toThrow(ModelInputError);
    });
  });
});

describe('selectFeatures checkpoints', () => {
  const { summary, spec, frame, algorithm } = setup(fixture.regression);

  it('calls the checkpoint after every candidate, and a throwing checkpoint stops the selection', async () => {
    const seen: number[] = [];
    const got = await selectFeatures(algorithm, summary, spec, frame, { selector: 'selector_type_brute', checkpoint: (tried) => void seen.push(tried) });
    expect(seen).toHaveLength(2 ** 8 - 1);
    expect(seen[seen.length - 1]).toBe(got.tried);
    let calls = 0;
    const stop = () => {
      if (++calls === 10) throw new Error('over budget');
    };
    await expect(selectFeatures(algorithm, summary, spec, frame, { selector: 'selector_type_iteration', iterations: 1000, checkpoint: stop })).rejects.toThrow('over budget');
    expect(calls).toBe(10);
  });
});
