// Reference: fixtures/gen_reduce.py computes every input subset's criterion from the rows —
// mlr: statsmodels OLS rsquared_adj; lda: the Mahalanobis D² between the class means of
// scikit-learn LinearDiscriminantAnalysis with its pooled covariance_ — and runs the backward
// elimination + swap passes from their definition; reduce, from the summary only, must give
// the same values (1e-9) and keep the same inputs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALGORITHMS, ModelInputError, type ModelSpec, resolveAttributes, Summary } from '@sml/stats';
import { checkReduce, reduceCriterion, reduceInputs, type ReduceAlgorithm } from '../../src/models/reduce';
import { expectClose } from '../helpers';

interface Case {
  algo: ReduceAlgorithm;
  inputs: string[];
  target: string;
  names: string[];
  rows: string[][];
  subsets: Array<{ inputs: string[]; criterion: number }>;
  runs: Array<{ delta: number; numIterations: number; inputs: string[]; criterion: number }>;
}
// mlr, lda, and mlr_swap: data where the swap passes change the inputs kept.
const fixture: Record<string, Case> = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'reduce.json'), 'utf8'));

function setup(name: string) {
  const c = fixture[name];
  const { algo } = c;
  const summary = new Summary();
  summary.learn({ attributeNames: c.names, attributeTypes: c.names.map((n) => (algo === 'lda' && n === c.target ? 'B' : 'C')), data: c.rows });
  const spec: ModelSpec = { algo, inputs: resolveAttributes(summary, c.inputs), targets: resolveAttributes(summary, [c.target]), params: {} };
  return { c, algo, summary, spec };
}
const names = (summary: Summary, inputs: number[]) => inputs.map((i) => summary.attributeNames[i]);

describe.each(Object.keys(fixture))('reduce on %s', (name) => {
  const { c, algo, summary, spec } = setup(name);

  it('the criterion of every input subset equals the reference', () => {
    expect(c.subsets).toHaveLength(2 ** c.inputs.length - 1);
    for (const s of c.subsets) {
      const model = ALGORITHMS[algo].build(summary, { ...spec, inputs: resolveAttributes(summary, s.inputs) });
      expectClose(reduceCriterion(algo, model), s.criterion, 1e-9, 1, s.inputs.join(','));
    }
  });

  it.each(c.runs.map((r) => ({ ...r, label: `delta ${r.delta}, numIterations ${r.numIterations}` })))('$label keeps the reference inputs', async (run) => {
    const got = await reduceInputs(summary, spec, { algo, delta: run.delta, numIterations: run.numIterations });
    expect(names(summary, got.inputs)).toEqual(run.inputs);
    expect(names(summary, got.dropped)).toEqual(c.inputs.filter((n) => !run.inputs.includes(n)));
    expectClose(got.criterion, run.criterion, 1e-9, 1, 'criterion');
    // The stored model is the build on the surviving inputs.
    expect(got.model.state()).toEqual(ALGORITHMS[algo].build(summary, { ...spec, inputs: got.inputs }).state());
  });
});

describe('reduceInputs', () => {
  const { c, summary, spec } = setup('mlr');

  it('defaults are delta 0.001 and 5 swap passes', async () => {
    expect(checkReduce({ algo: 'mlr' })).toEqual({ algo: 'mlr', delta: 0.001, numIterations: 5 });
    const run = c.runs.find((r) => r.delta === 0.001 && r.numIterations === 5)!;
    expect(names(summary, (await reduceInputs(summary, spec, { algo: 'mlr' })).inputs)).toEqual(run.inputs);
  });

  it('a huge delta keeps one input; a full set that does not build is its ModelInputError', async () => {
    expect((await reduceInputs(summary, spec, { algo: 'mlr', delta: 1e6, numIterations: 0 })).inputs).toHaveLength(1);
    // The target y is not binary: lda cannot build on the full set.
    await expect(reduceInputs(summary, { ...spec, algo: 'lda' }, { algo: 'lda' })).rejects.toThrow(ModelInputError);
  });

  it('the checkpoint sees every subset built and can stop the search', async () => {
    const seen: number[] = [];
    const got = await reduceInputs(summary, spec, { algo: 'mlr', checkpoint: (tried) => { seen.push(tried); } });
    expect(seen[seen.length - 1]).toBe(got.tried);
    await expect(reduceInputs(summary, spec, { algo: 'mlr', checkpoint: () => { throw new Error('over budget'); } })).rejects.toThrow('over budget');
  });

  it('an unsupported algorithm, negative delta or bad numIterations are ModelInputErrors', () => {
    expect(() => checkReduce({ algo: 'ridge' as ReduceAlgorithm })).toThrow(/reduce supports lda, mlr, got \[ridge\]/);
    expect(() => checkReduce({ algo: 'mlr', delta: -0.1 })).toThrow(/delta must be a finite number ≥ 0/);
    expect(() => checkReduce({ algo: 'mlr', numIterations: 1.5 })).toThrow(/numIterations must be an integer ≥ 0/);
  });
});
