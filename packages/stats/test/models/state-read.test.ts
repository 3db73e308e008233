// Reading model states back (state-read.ts, every Algorithm.restore): a state from an imported
// document is anyone's JSON. Whatever a state is mutated into, restore either refuses it with
// a ModelStateError naming the field, or gives a model that predicts (a row with every input
// missing, and ordinary rows) failing at most with a ModelInputError, the 400 of a bad frame:
// never a TypeError, a RangeError, or a walk that does not end.
import fc from 'fast-check';
import { ALGORITHMS, type DataFrame, forestOptionsOf, type Model, ModelInputError, ModelStateError, resolveAttributes, Summary, type SummaryOptions } from '@sml/stats';
import { random } from '../helpers';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const INPUTS = ['x1', 'x2', 'x3'];
const forest = (type: string, target?: string) => ({ forest: forestOptionsOf({ rf_type: type, ...(target ? { rf_target_name: target } : {}), rf_features: 'x1:x2:x3', rf_num_trees: '3' })! });
/** [algo, targets, params, summary options]: every algorithm a plain project builds (mqda, mc, hmm, km: `special` below). */
const SETUPS: [string, string[], Record<string, string>, SummaryOptions][] = [
  ['mlr', ['y'], {}, {}], ['ridge', ['y'], {}, {}], ['lasso', ['y'], {}, {}], ['elasticnet', ['y'], {}, {}], ['pcr', ['y'], {}, {}], ['plsq', ['y'], {}, {}],
  ['lsvr', ['y'], {}, {}], ['lsvm', ['label'], {}, {}], ['lr', ['label'], {}, {}], ['lda', ['label'], {}, {}], ['bayes', ['label'], {}, {}],
  ['mlda', ['k1', 'k2', 'k3'], {}, {}], ['covest', [], {}, {}], ['repca', [], {}, {}], ['oospca', [], {}, {}], ['hba', [], {}, {}], ['ecod', [], {}, {}],
  ['evt', [], { evt_warmup_size: '5', evt_tdigest: 'true' }, {}],
  ['kmeans', [], { kmeans_k: '3' }, { clusters: { features: INPUTS, centroids: 20, warmup: 30 } }],
  ['rf_classifier', ['label'], {}, forest('rf_classifier', 'label')], ['rf_regressor', ['y'], {}, forest('rf_regressor', 'y')], ['rf_anomaly', [], {}, forest('rf_anomaly')],
  ['powerreg', ['y'], {}, { power: { column: 'y', min: -2, max: 2, steps: 10 } }],
];

function frame(rows: number, seed: number): DataFrame {
  const next = random(seed);
  const data = Array.from({ length: rows }, () => {
    const [x1, x2, x3] = [next() * 4 - 2, next() * 2, next() - 3];
    const y = 1 + 2 * x1 - x2 + 0.5 * x3 + next() * 0.3;
    const k = x1 > 0.5 ? 0 : x1 > -0.5 ? 1 : 2;
    return [...[x1, x2, x3, y].map((v) => v.toFixed(4)), String(x1 + next() - 0.5 > 0 ? 1 : 0), ...[0, 1, 2].map((c) => (c === k ? '1' : '0'))];
  });
  return { attributeNames: ['x1', 'x2', 'x3', 'y', 'label', 'k1', 'k2', 'k3'], attributeTypes: ['C', 'C', 'C', 'C', 'B', 'B', 'B', 'B'], data };
}

const PREDICT = { names: ['x1', 'x2', 'x3', 'y', 'label'], rows: [['1', '0.5', '-3', '2', '1'], ['', 'x', '', '', ''], ['1e300', '-1e300', '0', '', '']] };

const built = new Map<string, Json>(SETUPS.map(([algo, targets, params, options]) => {
  const summary = new Summary({ histogram: 'exact', ...options });
  summary.learn(frame(120, 7));
  const model = ALGORITHMS[algo].build(summary, { algo, inputs: resolveAttributes(summary, algo === 'evt' ? ['x1'] : INPUTS), targets: resolveAttributes(summary, targets), params });
  model.predict(PREDICT);
  return [algo, JSON.parse(JSON.stringify(model.state())) as Json];
}));

/** The algorithms of their own projects: sequence (mc, hmm), survival (km), partition (mqda). */
const special = (algo: string, options: SummaryOptions, data: DataFrame, inputs: string[], targets: string[]): [string, Json] => {
  const summary = new Summary(options);
  summary.learn(data);
  const model = ALGORITHMS[algo].build(summary, { algo, inputs: resolveAttributes(summary, inputs), targets: resolveAttributes(summary, targets), params: {} });
  return [algo, JSON.parse(JSON.stringify(model.state())) as Json];
};
const next = random(3);
const weather = Array.from({ length: 60 }, () => [['sun', 'rain', 'fog'][Math.floor(next() * 3)]]);
for (const [algo, state] of [
  special('mc', { sequenceOrder: 2 }, { attributeNames: ['weather'], attributeTypes: ['T'], data: weather }, ['weather'], []),
  special('hmm', { sequenceOrder: 1 }, { attributeNames: ['regime', 'obs'], attributeTypes: ['T', 'T'], data: weather.map(([w], i) => [w, i % 4 === 0 ? 'odd' : w]) }, ['obs'], ['regime']),
  special('km', { km_time_column: 't', km_event_column: 'e', km_group_column: 'arm' }, { attributeNames: ['t', 'e', 'arm'], attributeTypes: ['C', 'C', 'T'], data: Array.from({ length: 40 }, (_, i) => [String(i % 13), String(i % 3 === 0 ? 0 : 1), i % 2 ? 'a' : 'b']) }, [], []),
  special('mqda', { partitionSplit: 'g' }, { attributeNames: ['a', 'b', 'g'], attributeTypes: ['C', 'C', 'T'], data: Array.from({ length: 90 }, (_, i) => [String(next() + (i % 3)), String(next() * 2 - (i % 3)), ['u', 'v', 'w'][i % 3]]) }, ['a', 'b'], []),
]) built.set(algo, state);

type Mutation = { op: 'replace' | 'drop' | 'repeat' | 'delete'; path: number[]; value: Json };
const hostile: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(null, {}, [], '', true, 0, -1, 1.5, 1e308, 2 ** 53, [[[]]], [null], [{}], 'AAAA', 'AAAAAAAAAAA=', { kind: 'exact' }),
  fc.integer({ min: 1, max: 300 }).map((n): Json => JSON.parse(`${'['.repeat(n)}${']'.repeat(n)}`) as Json),
  { arbitrary: fc.double().map((v): Json => (Number.isFinite(v) ? v : null)), weight: 3 },
  { arbitrary: fc.integer({ min: -3, max: 30 }), weight: 2 },
);
const mutation: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom<Mutation['op']>('replace', 'replace', 'drop', 'repeat', 'delete'),
  path: fc.array(fc.nat(), { maxLength: 6 }),
  value: hostile,
});

/** `state` with one mutation at the node `path` leads to (each index modulo the keys or entries there). */
function mutate(state: Json, m: Mutation): Json {
  if (m.path.length === 0) return m.op === 'replace' ? m.value : state;
  const copy = structuredClone(state);
  let parent = copy;
  for (let d = 0; d < m.path.length; d++) {
    const keys: (string | number)[] = Array.isArray(parent) ? parent.map((_, i) => i) : parent !== null && typeof parent === 'object' ? Object.keys(parent) : [];
    if (keys.length === 0) break;
    const key = keys[m.path[d] % keys.length];
    const holder = parent as Record<string | number, Json>;
    const child = holder[key];
    if (d < m.path.length - 1 && child !== null && typeof child === 'object') {
      parent = child;
      continue;
    }
    if (m.op === 'replace') holder[key] = m.value;
    else if (m.op === 'delete') {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete holder[key];
    } else if (Array.isArray(child)) {
      if (m.op === 'drop') child.pop();
      else child.push(structuredClone(child[0] ?? m.value));
    } else holder[key] = m.value;
    break;
  }
  return copy;
}

/** Restores and predicts; answers what happened ('refused', 'predicted', 'input error'), throws anything else. */
function attempt(algo: string, state: Json): string {
  let model: Model;
  try {
    model = ALGORITHMS[algo].restore(JSON.parse(JSON.stringify(state)));
  } catch (err) {
    if (err instanceof ModelStateError) return 'refused';
    throw err;
  }
  try {
    model.predict({ names: [...model.inputNames], rows: [model.inputNames.map(() => '')] });
    model.predict(PREDICT);
    return 'predicted';
  } catch (err) {
    if (err instanceof ModelInputError) return 'input error';
    throw err;
  }
}

describe('model states read back', () => {
  it('covers every algorithm of the registry', () => {
    expect([...built.keys()].sort()).toEqual(Object.keys(ALGORITHMS).sort());
  });

  it.each([...built.keys()])('%s: its own state is read back and predicts', (algo) => {
    // PREDICT has no sequence column: mc and hmm answer the 400 of a frame without one.
    expect(attempt(algo, built.get(algo)!)).toBe(algo === 'mc' || algo === 'hmm' ? 'input error' : 'predicted');
  });

  it.each([...built.keys()])('%s: a mutated state is refused (naming a field) or predicts; nothing else', (algo) => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
        const state = mutations.reduce(mutate, built.get(algo)!);
        seen.add(attempt(algo, state));
      }),
      { numRuns: 300 },
    );
    expect(seen.has('refused')).toBe(true);
  });

  it.each([['{}', {}], ['null', null], ['an array', [[[1]]]], ['a number', 5]] as [string, Json][])('every algorithm refuses a state that is %s', (_, state) => {
    for (const algo of Object.keys(ALGORITHMS)) expect([algo, attempt(algo, state)]).toEqual([algo, 'refused']);
  });

  it('a forest whose tree loops back to its root is refused, naming the tree and node', () => {
    const state = structuredClone(built.get('rf_regressor')) as { trees: string[]; stride: number };
    const nodes = new Float64Array(Buffer.from(state.trees[0], 'base64').buffer.slice(0));
    const inner = Array.from({ length: nodes.length / state.stride }, (_, j) => j).find((j) => nodes[j * state.stride + 2] >= 0)!;
    nodes[inner * state.stride + 2] = 0;
    state.trees[0] = Buffer.from(nodes.buffer).toString('base64');
    expect(() => ALGORITHMS.rf_regressor.restore(state)).toThrow(new ModelStateError(`state.trees[0]: node ${inner} has child 0, not a node of its own`));
  });

  it('a state names the field it fails at', () => {
    const mlr = built.get('mlr') as { coef: number[] };
    expect(() => ALGORITHMS.mlr.restore({ ...mlr, coef: mlr.coef.slice(1) })).toThrow(new ModelStateError('state.coef has 2 entries, not 3'));
    expect(() => ALGORITHMS.mlr.restore({ ...mlr, coef: [1, [2], 3] })).toThrow(new ModelStateError('state.coef[1] is not a number (an array)'));
    expect(() => ALGORITHMS.lr.restore(mlr)).toThrow(new ModelStateError('state.algo is not one of lr ("mlr")'));
  });
});
