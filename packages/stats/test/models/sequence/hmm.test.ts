/**
 * `hmm` (STATS.md §4, §7). Reference: fixtures/gen_sequence_models.py counts hidden Activity /
 * observed Place of activity_rtlm_no_lag.csv nltk-style (transitions of consecutive steps,
 * same-step emissions, unigram start frequencies) and runs its own log-space Viterbi (ties to
 * the first state in sorted order); for a continuous observation it fits per-state Gaussians
 * on generated data. Probabilities 1e-12 relative, Gaussian moments 1e-9; decoded paths exact.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DataFrame, type Model, ModelInputError, resolveAttributes, Summary, type SummaryOptions } from '@sml/stats';
import { hmm } from '../../../src/models/sequence';
import { close } from '../classifiers/conformance';
import { dataFile } from '../../helpers';

type Rle = [string, number][];
interface Decoded { rle: Rle; logp: number }
const fixture: {
  rows: number;
  states: string[];
  initial: Record<string, number>;
  transitions: Record<string, Record<string, number>>;
  emissions: Record<string, Record<string, number>>;
  full: Decoded;
  window: Decoded & { from: number; to: number };
  hand: Decoded & { observations: (string | null)[] };
  starts_first: string;
} = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'hmm_activity.json'), 'utf8'));
const gaussianFixture: { train: [string, string][]; test: string[]; states: string[]; mean: Record<string, number>; variance: Record<string, number>; path: string[] } = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'hmm_gaussian.json'), 'utf8'),
);

/** activity_rtlm_no_lag.csv (CR line endings): Place and Activity as categorical steps. */
function activityFrame(): DataFrame {
  const lines = readFileSync(dataFile('activity_rtlm_no_lag.csv'), 'utf8').split('\r').filter((l) => l !== '');
  const header = lines[0].split(',');
  const [place, activity] = [header.indexOf('Place'), header.indexOf('Activity')];
  return { attributeNames: ['Place', 'Activity'], attributeTypes: ['T', 'T'], data: lines.slice(1).map((l) => l.split(',')).map((r) => [r[place], r[activity]]) };
}

function learn(options: SummaryOptions, frame: DataFrame): Summary {
  const s = new Summary(options);
  s.learn(frame);
  return s;
}

const expand = (rle: Rle) => rle.flatMap(([s, n]) => new Array<string>(n).fill(s));

function expectProbabilities(got: Record<string, Record<string, number>>, want: Record<string, Record<string, number>>, what: string): void {
  expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
  for (const [a, row] of Object.entries(want)) {
    expect(Object.keys(got[a]).sort()).toEqual(Object.keys(row).sort());
    for (const [b, p] of Object.entries(row)) close(got[a][b], p, 1e-12, 1, `${what} ${a} → ${b}`);
  }
}

describe('hmm on activity_rtlm_no_lag.csv (hidden Activity, observed Place) equals independent python counting and Viterbi', () => {
  const frame = activityFrame();
  const summary = learn({ sequenceOrder: 1 }, frame);
  const spec = { algo: 'hmm', inputs: resolveAttributes(summary, ['Place']), targets: resolveAttributes(summary, ['Activity']), params: {} };
  const model = hmm.build(summary, spec);
  const observations = (cells: (string | null)[]) => ({ names: ['Place'], rows: cells.map((c) => [c ?? '']) });

  test('the same rows, the same states', () => {
    expect(frame.data).toHaveLength(fixture.rows);
    expect([model.inputNames, model.targetNames]).toEqual([['Place'], ['Activity']]);
    expect(model.info()).toEqual({ states: String(fixture.states.length), emission: 'categorical', sequence_initial: 'unigrams', steps: String(fixture.rows) });
  });

  test('start, transition and emission probabilities (modelInfo.extra)', () => {
    const extra = model.extra();
    expectProbabilities({ s: JSON.parse(extra.initial) }, { s: fixture.initial }, 'start');
    expectProbabilities(JSON.parse(extra.transitions), fixture.transitions, 'transition');
    expectProbabilities(JSON.parse(extra.emissions), fixture.emissions, 'emission');
  });

  test('Viterbi over the whole file: the same decoded path; `seq` is the whole path on every row', () => {
    const predictions = model.predict({ names: ['Place'], rows: frame.data.map((r) => [r[0]]) });
    expect(predictions).toHaveLength(fixture.rows);
    const states = predictions.map((p) => p.state);
    expect(states).toEqual(expand(fixture.full.rle));
    expect(predictions[0].seq).toBe(states.join(','));
    expect(predictions[fixture.rows - 1].seq).toBe(predictions[0].seq);
    for (const p of predictions.slice(0, 100)) expect(Object.keys(p).sort()).toEqual(['seq', 'state']);
  });

  test('Viterbi over a window of the file and a hand sequence with an unknown place and a missing cell', () => {
    const window = frame.data.slice(fixture.window.from, fixture.window.to).map((r) => r[0]);
    expect(model.predict(observations(window)).map((p) => p.state)).toEqual(expand(fixture.window.rle));
    const hand = model.predict(observations(fixture.hand.observations));
    expect(hand.map((p) => p.state)).toEqual(expand(fixture.hand.rle));
    expect(hand[0].seq).toBe(expand(fixture.hand.rle).join(','));
  });

  test('sequence_initial=starts: every decode starts in the one learned sequence\'s first state', () => {
    const starts = hmm.build(summary, { ...spec, params: { sequence_initial: 'starts' } });
    expect(JSON.parse(starts.extra().initial)).toEqual({ [fixture.starts_first]: 1 });
    expect(starts.predict(observations(['bedroom', 'bedroom']))[0].state).toBe(fixture.starts_first);
    // The first state never emitted `living`: no path, where start frequencies find one.
    expect(model.predict(observations(['living', 'living']))[0].state).toBe('spare_time/tv');
    expect(starts.predict(observations(['living', 'living']))[0].state).toBe('');
  });

  test('predictionChars bounds the characters of the answer from above, before predicting (windows of every length from 0 to 300); predictionSteps is rows × states²', () => {
    const chars = (ps: Record<string, string>[]) => ps.reduce((n, p) => n + Object.entries(p).reduce((m, [k, v]) => m + k.length + v.length, 0), 0);
    const places = frame.data.map((r) => r[0]);
    let tight = 0;
    for (let rows = 0; rows <= 300; rows++) {
      const answer = model.predict(observations(places.slice(1000, 1000 + rows)));
      const bound = model.predictionChars!(rows);
      expect(chars(answer)).toBeLessThanOrEqual(bound);
      // Within the longest state's length per step of each row's sequence: not a loose bound.
      if (chars(answer) * 3 >= bound) tight++;
    }
    expect(tight).toBeGreaterThan(250);
    // Viterbi's work: every pair of states (and each state's emission) at every step.
    const n = fixture.states.length;
    expect(model.predictionSteps!(300)).toBe(300 * n * (n + 1));
  });

  test('the state survives a JSON round trip', () => {
    const restored = hmm.restore(JSON.parse(JSON.stringify(model.state())));
    const hand = observations(fixture.hand.observations);
    expect(restored.predict(hand)).toEqual(model.predict(hand));
    expect([restored.info(), restored.extra(), restored.inputNames, restored.targetNames]).toEqual([model.info(), model.extra(), model.inputNames, model.targetNames]);
  });
});

describe('hmm with a continuous observation: Gaussian emissions from the summary\'s class-conditional moments', () => {
  const frame: DataFrame = { attributeNames: ['regime', 'load'], attributeTypes: ['T', 'C'], data: gaussianFixture.train };
  const summary = learn({ sequenceOrder: 1 }, frame);
  const model: Model = hmm.build(summary, { algo: 'hmm', inputs: resolveAttributes(summary, ['load']), targets: resolveAttributes(summary, ['regime']), params: {} });

  test('per-state mean and population variance (+ 1e-9 × the variance of the observation), as numpy', () => {
    expect(model.info().emission).toBe('gaussian');
    const emissions = JSON.parse(model.extra().emissions) as Record<string, { mean: number; variance: number }>;
    for (const s of gaussianFixture.states) {
      close(emissions[s].mean, gaussianFixture.mean[s], 1e-9, 1, `mean ${s}`);
      close(emissions[s].variance, gaussianFixture.variance[s], 1e-9, 1, `variance ${s}`);
    }
  });

  test('the same Viterbi path (a missing observation is decoded by the transitions alone)', () => {
    expect(model.predict({ names: ['load'], rows: gaussianFixture.test.map((x) => [x]) }).map((p) => p.state)).toEqual(gaussianFixture.path);
    const restored = hmm.restore(JSON.parse(JSON.stringify(model.state())));
    expect(restored.predict({ names: ['load'], rows: gaussianFixture.test.map((x) => [x]) }).map((p) => p.state)).toEqual(gaussianFixture.path);
  });

  test('Gaussian emissions need the hidden variable as a categorical column: a string-key hidden variable is refused', () => {
    const s = learn({ sequenceOrder: 1 }, { attributeNames: ['regime', 'load'], attributeTypes: ['S', 'C'], data: gaussianFixture.train });
    expect(() => hmm.build(s, { algo: 'hmm', inputs: resolveAttributes(s, ['load']), targets: [], params: { hidden: 'regime' } })).toThrow(
      'hmm: Gaussian emissions of [load] need the hidden variable [regime] learned as a categorical (T) column',
    );
  });
});

describe('hmm: hand-counted model and refusals', () => {
  // Steps: (h, o) = (x, p) (x, p) (y, q) (y, p) (x, q).
  const summary = learn({ sequenceOrder: 1 }, { attributeNames: ['h', 'o'], attributeTypes: ['T', 'T'], data: [['x', 'p'], ['x', 'p'], ['y', 'q'], ['y', 'p'], ['x', 'q']] });
  const spec = (params: Record<string, string> = {}) => ({ algo: 'hmm', inputs: resolveAttributes(summary, ['o']), targets: resolveAttributes(summary, ['h']), params });

  test('counts: start = unigram frequencies, transitions of consecutive steps, same-step emissions', () => {
    const extra = hmm.build(summary, spec()).extra();
    expect(JSON.parse(extra.initial)).toEqual({ x: 0.6, y: 0.4 });
    expect(JSON.parse(extra.transitions)).toEqual({ x: { x: 0.5, y: 0.5 }, y: { x: 0.5, y: 0.5 } });
    expect(JSON.parse(extra.emissions)).toEqual({ x: { p: 2 / 3, q: 1 / 3 }, y: { p: 0.5, q: 0.5 } });
  });

  test('a path of probability 0 decodes to empty states', () => {
    // Only z → z was learned for the second chain: w can never follow it.
    const s = learn({ sequenceOrder: 1 }, { attributeNames: ['h', 'o'], attributeTypes: ['T', 'T'], data: [['w', 'a'], ['z', 'b'], ['z', 'b']] });
    const m = hmm.build(s, { algo: 'hmm', inputs: [], targets: [], params: { hidden: 'h', observed: 'o' } });
    expect(m.predict({ names: ['o'], rows: [['b'], ['a']] })).toEqual([{ state: '', seq: '' }, { state: '', seq: '' }]);
    expect(m.predict({ names: ['o'], rows: [['a'], ['b']] })).toEqual([{ state: 'w', seq: 'w,z' }, { state: 'z', seq: 'w,z' }]);
  });

  test('refuses, naming what is wrong', () => {
    expect(() => hmm.build(summary, { ...spec(), targets: [] })).toThrow('hmm needs the hidden variable as its target attribute (or parameter [hidden])');
    expect(() => hmm.build(summary, { ...spec(), inputs: [] })).toThrow('hmm needs the observed variable as its input attribute (or parameter [observed])');
    expect(() => hmm.build(summary, { ...spec(), inputs: resolveAttributes(summary, ['h']) })).toThrow('hmm: [h] cannot be both the hidden and the observed variable');
    const rows = learn({ sequenceOrder: 1, sequenceLayout: 'rows' }, { attributeNames: ['a', 'b'], attributeTypes: ['T', 'T'], data: [['x', 'y']] });
    expect(() => hmm.build(rows, { algo: 'hmm', inputs: [], targets: [], params: {} })).toThrow(ModelInputError);
    expect(() => hmm.build(rows, { algo: 'hmm', inputs: [], targets: [], params: {} })).toThrow('hmm needs a steps-layout sequence project');
    const model = hmm.build(summary, spec());
    expect(() => model.predict({ names: ['a', 'b'], rows: [['p', 'q']] })).toThrow('hmm: the frame has no column [o]');
    expect(model.predict({ names: [], rows: [] })).toEqual([]);
  });
});
