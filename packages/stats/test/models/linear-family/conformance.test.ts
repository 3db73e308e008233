// Laws every algorithm of the linear family obeys, whatever its reference (STYLE.md: one
// generic conformance suite for every model). A model is a function of the summary, so it is
// deterministic, blind to row order and chunking (summary additivity, STATS.md §1) and to
// forgotten rows; it is also blind to the order of its inputs, imputes a missing input with
// its mean, and survives a JSON round trip of its state.
import fc from 'fast-check';
import { type Model, type ModelSpec, type PredictFrame, Summary } from '@sml/stats';
import { expectClose } from '../../helpers';
import { linearFamily } from '../../../src/models/linear-family';
import { DATASETS, type Dataset, specOf, summaryOf } from './fixture';

// The iterative solvers run to a tight tolerance here so that a different coordinate order
// (permuted inputs) reaches the same optimum to 1e-9.
const TIGHT = { tol: '1e-13', max_iter: '1000000' };
const SETUPS: Record<string, { data: string; inputs: string[]; target: string; params: Record<string, string> }> = {
  ridge: { data: 'iris', inputs: ['sepal_width', 'petal_length', 'petal_width'], target: 'sepal_length', params: { lambda: '2' } },
  lsvr: { data: 'iris', inputs: ['sepal_width', 'petal_length', 'petal_width'], target: 'sepal_length', params: {} },
  lasso: { data: 'generated', inputs: ['g1', 'g2', 'g3', 'g4'], target: 'gy', params: { lambda: '0.05', ...TIGHT } },
  elasticnet: { data: 'generated', inputs: ['g1', 'g2', 'g3', 'g4'], target: 'gy', params: { lambda: '0.1', eta: '0.7', ...TIGHT } },
  pcr: { data: 'generated', inputs: ['g1', 'g2', 'g3', 'g4'], target: 'gy', params: { q: '3' } },
  plsq: { data: 'iris', inputs: ['sepal_width', 'petal_length', 'petal_width'], target: 'sepal_length', params: {} },
  lsvm: { data: 'binary', inputs: ['b1', 'b2', 'b3'], target: 'label', params: { sml_model_svm_nu: '0.5' } },
  lr: { data: 'binary', inputs: ['b1', 'b2', 'b3'], target: 'label', params: {} },
};

const RUNS = { numRuns: 15 };

function expectSamePredictions(actual: Model, expected: Model, frame: PredictFrame, what: string): void {
  const a = actual.predict(frame);
  expected.predict(frame).forEach((p, r) => {
    expect(Object.keys(a[r]).sort()).toEqual(Object.keys(p).sort());
    for (const key of Object.keys(p)) expectClose(Number(a[r][key]), Number(p[key]), 1e-9, 1, `${what}: row ${r} ${key}`);
  });
}

it('every algorithm of the family has a conformance setup', () => {
  expect(Object.keys(linearFamily).sort()).toEqual(Object.keys(SETUPS).sort());
});

describe.each(Object.keys(SETUPS))('%s', (algo) => {
  const setup = SETUPS[algo];
  const data: Dataset = DATASETS[setup.data];
  const algorithm = linearFamily[algo];
  const build = (s: Summary, inputs = setup.inputs): Model => algorithm.build(s, specOf(s, algo, inputs, setup.target, setup.params));
  const summary = summaryOf(data);
  const model = build(summary);
  // Rows to predict: a spread of the training rows, with every column.
  const frame: PredictFrame = { names: data.names, rows: data.rows.filter((_, r) => r % 9 === 0) };

  it('is named as its registry key and predicts the keys of its task', () => {
    expect(algorithm.name).toBe(algo);
    expect(model.algo).toBe(algo);
    const keys = Object.keys(model.predict(frame)[0]).sort();
    expect(keys).toEqual(algorithm.task === 'regression' ? ['res'] : algo === 'lr' ? ['prob', 'res'] : ['res', 'score']);
  });

  it('building twice from the same summary gives the same model', () => {
    expect(JSON.stringify(build(summary).state())).toBe(JSON.stringify(model.state()));
  });

  it('the JSON state restores a model with the same predictions and modelInfo', () => {
    const restored = algorithm.restore(JSON.parse(JSON.stringify(model.state())));
    expect(restored.predict(frame)).toEqual(model.predict(frame));
    expect([restored.info(), restored.extra(), restored.inputNames, restored.targetNames]).toEqual([model.info(), model.extra(), model.inputNames, model.targetNames]);
  });

  it('learning the rows in another order gives the same predictions', () => {
    const order = data.rows.map((_, r) => r);
    fc.assert(
      fc.property(fc.shuffledSubarray(order, { minLength: order.length, maxLength: order.length }), (perm) => {
        expectSamePredictions(build(summaryOf(data, perm.map((r) => data.rows[r]))), model, frame, 'permuted rows');
      }),
      RUNS,
    );
  });

  it('learning the rows in chunks gives the same model as learning them at once', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: data.rows.length - 1 }), { maxLength: 5 }), (cuts) => {
        const edges = [0, ...cuts.sort((a, b) => a - b), data.rows.length];
        const chunked = new Summary();
        for (let k = 0; k + 1 < edges.length; k++) chunked.learn({ attributeNames: data.names, attributeTypes: data.types, data: data.rows.slice(edges[k], edges[k + 1]) });
        const rebuilt = build(chunked);
        for (const [key, value] of Object.entries(model.extra())) expectClose(Number(rebuilt.extra()[key]), Number(value), 1e-9, 1, `chunks: ${key}`);
        expectSamePredictions(rebuilt, model, frame, 'chunks');
      }),
      RUNS,
    );
  });

  it('forgetting rows gives the model of the remaining rows', () => {
    const kept = data.rows.slice(0, Math.floor(data.rows.length * 0.8));
    const s = summaryOf(data);
    s.forget({ attributeNames: data.names, attributeTypes: data.types, data: data.rows.slice(kept.length) });
    expectSamePredictions(build(s), build(summaryOf(data, kept)), frame, 'forget');
  });

  it('the order of the inputs does not change the predictions', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(setup.inputs, { minLength: setup.inputs.length, maxLength: setup.inputs.length }), (inputs) => {
        expectSamePredictions(build(summary, inputs), model, frame, `inputs ${inputs.join(',')}`);
      }),
      RUNS,
    );
  });

  it('a missing input (missing cell, unparsable text or absent column) is imputed with its mean', () => {
    const row = frame.rows[1];
    const at = (name: string) => row[data.names.indexOf(name)];
    setup.inputs.forEach((missing) => {
      const meanFilled = model.predict({ names: setup.inputs, rows: [setup.inputs.map((n) => (n === missing ? String(summary.mean(n)) : at(n)))] })[0];
      const variants: PredictFrame[] = [
        { names: setup.inputs, rows: [setup.inputs.map((n) => (n === missing ? '' : at(n)))] },
        { names: setup.inputs, rows: [setup.inputs.map((n) => (n === missing ? 'not a number' : at(n)))] },
        { names: setup.inputs.filter((n) => n !== missing), rows: [setup.inputs.filter((n) => n !== missing).map(at)] },
      ];
      for (const f of variants) {
        const p = model.predict(f)[0];
        for (const key of Object.keys(meanFilled)) expectClose(Number(p[key]), Number(meanFilled[key]), 1e-12, 1, `${missing} missing: ${key}`);
      }
    });
  });

  it('refuses a spec without exactly one target or with the target among the inputs', () => {
    const spec: ModelSpec = specOf(summary, algo, setup.inputs, setup.target, setup.params);
    expect(() => algorithm.build(summary, { ...spec, targets: [] })).toThrow(/exactly one target/);
    expect(() => algorithm.build(summary, { ...spec, inputs: [...spec.inputs, spec.targets[0]] })).toThrow(/cannot also be an input/);
  });
});
