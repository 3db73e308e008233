/**
 * `mc` (STATS.md §4, §7). Reference: plain counting of weather.seq by
 * fixtures/gen_sequence_models.py (transitions, seq.like, next, next.p for orders 1 and 2, the
 * start of a sequence scored as an n-gram (default, STATS.md §4), from starts or from unigrams),
 * and hand-computed chains. Closed forms: 1e-12 relative.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DataFrame, ModelInputError, type Prediction, resolveAttributes, Summary, type SummaryOptions } from '@sml/stats';
import { mc, sequenceModels } from '../../../src/models/sequence';
import { close } from '../classifiers/conformance';
import { dataFile } from '../../helpers';

interface Case {
  order: number;
  initial: 'ngrams' | 'starts' | 'unigrams';
  transitions: Record<string, Record<string, number>>;
  predictions: { next: string; 'next.p': number | 'NaN'; 'seq.like': number | '-Infinity' }[];
}
const fixture: { tokens: number; sequences: string[][]; cases: Case[] } = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'mc_weather.json'), 'utf8'));
const tokens = readFileSync(dataFile('weather.seq'), 'utf8').split(',');
const KEYS = ['next', 'next.p', 'seq.like'];

function learn(options: SummaryOptions, frame: DataFrame): Summary {
  const s = new Summary(options);
  s.learn(frame);
  return s;
}

/** weather.seq as one row of a rows-layout project (columns t1..t40, categorical). */
const weatherRow = (order: number) => learn({ sequenceOrder: order, sequenceLayout: 'rows' }, { attributeNames: tokens.map((_, i) => `t${i + 1}`), attributeTypes: tokens.map(() => 'T'), data: [tokens] });

/** The fixture's sequences as rows padded with missing cells to a common width. */
function paddedRows(sequences: string[][]): string[][] {
  const width = Math.max(...sequences.map((s) => s.length));
  return sequences.map((s) => [...s.map((x, i) => (i % 3 === 0 ? ` ${x.toUpperCase()}` : x)), ...new Array<string>(width - s.length).fill('')]);
}

function expectPrediction(got: Prediction, want: Case['predictions'][number], what: string): void {
  expect(Object.keys(got).sort()).toEqual([...KEYS].sort());
  expect(got.next).toBe(want.next);
  if (want['next.p'] === 'NaN') expect(got['next.p']).toBe('NaN');
  else close(Number(got['next.p']), want['next.p'], 1e-12, 1, `${what} next.p`);
  if (want['seq.like'] === '-Infinity') expect(got['seq.like']).toBe('-Infinity');
  else close(Number(got['seq.like']), want['seq.like'], 1e-12, 1, `${what} seq.like`);
}

describe('mc on weather.seq (rows layout) equals independent python counting', () => {
  test('the fixture was made from the same file', () => expect(tokens).toHaveLength(fixture.tokens));

  describe.each(fixture.cases.map((c) => [c.order, c.initial, c] as const))('order %d, first state from %s', (order, initial, c) => {
    const model = mc.build(weatherRow(order), { algo: 'mc', inputs: [], targets: [], params: { sequence_initial: initial } });

    test('transition probabilities (modelInfo.extra.transitions)', () => {
      const got = JSON.parse(model.extra().transitions) as Record<string, Record<string, number>>;
      expect(Object.keys(got).sort()).toEqual(Object.keys(c.transitions).sort());
      for (const [h, row] of Object.entries(c.transitions)) {
        expect(Object.keys(got[h]).sort()).toEqual(Object.keys(row).sort());
        for (const [s, p] of Object.entries(row)) close(got[h][s], p, 1e-12, 1, `P(${s} | ${h})`);
      }
    });

    test('one map per row: next, next.p, seq.like (missing cells dropped, cells trimmed and lower-cased)', () => {
      const predictions = model.predict({ names: paddedRows(fixture.sequences)[0].map((_, i) => `c${i}`), rows: paddedRows(fixture.sequences) });
      expect(predictions).toHaveLength(fixture.sequences.length);
      predictions.forEach((p, r) => expectPrediction(p, c.predictions[r], `sequence ${r}`));
    });

    test('the state survives a JSON round trip', () => {
      const restored = mc.restore(JSON.parse(JSON.stringify(model.state())));
      const frame = { names: paddedRows(fixture.sequences)[0].map((_, i) => `c${i}`), rows: paddedRows(fixture.sequences) };
      expect(restored.predict(frame)).toEqual(model.predict(frame));
      expect([restored.info(), restored.extra(), restored.inputNames, restored.targetNames]).toEqual([model.info(), model.extra(), model.inputNames, model.targetNames]);
    });
  });

  test('steps layout: weather.seq as one column of steps is one sequence, predicted as one map (first state as an n-gram by default)', () => {
    const s = learn({ sequenceOrder: 1 }, { attributeNames: ['weather'], attributeTypes: ['T'], data: tokens.map((t) => [t]) });
    const model = mc.build(s, { algo: 'mc', inputs: resolveAttributes(s, ['weather']), targets: [], params: {} });
    expect(model.inputNames).toEqual(['weather']);
    expect(model.info().sequence_initial).toBe('ngrams');
    const predictions = model.predict({ names: ['weather'], rows: tokens.map((t) => [t]) });
    expect(predictions).toHaveLength(1);
    expectPrediction(predictions[0], fixture.cases.find((c) => c.order === 1 && c.initial === 'ngrams')!.predictions[0], 'steps');
  });
});

describe('mc on hand-computed chains', () => {
  // Rows: a b a / b b → starts {a: 1, b: 1}; unigrams {a: 2, b: 3}; a→b 1, b→a 1, b→b 1.
  const s = learn({ sequenceOrder: 1, sequenceLayout: 'rows' }, { attributeNames: ['x1', 'x2', 'x3'], attributeTypes: ['S', 'S', 'S'], data: [['a', 'b', 'a'], ['b', 'b', '']] });
  const model = mc.build(s, { algo: 'mc', inputs: [], targets: [], params: { sequence_initial: 'starts' } });

  test('default: seq.like = ln P(first) + Σ ln P(transition), P(first) = the first state\'s share of all learned states', () => {
    const byDefault = mc.build(s, { algo: 'mc', inputs: [], targets: [], params: {} });
    expect(byDefault.info().sequence_initial).toBe('ngrams');
    const [abb, ba, aa] = byDefault.predict({ names: ['x1', 'x2', 'x3'], rows: [['a', 'b', 'b'], ['b', 'a', ''], ['a', 'a', '']] });
    expect(abb).toEqual({ next: 'a', 'next.p': '0.5', 'seq.like': String(Math.log(2 / 5) + Math.log(1) + Math.log(0.5)) });
    expect(ba).toEqual({ next: 'b', 'next.p': '1', 'seq.like': String(Math.log(3 / 5) + Math.log(0.5)) });
    expect(aa['seq.like']).toBe('-Infinity');
  });

  test('order 2 by default: the first two states as a 2-gram (its share of all 2-grams), then order-2 transitions', () => {
    // Rows: a b c / a b d → 2-grams ab 2, bc 1, bd 1; unigrams a 2, b 2, c 1, d 1; P(c | a b) = P(d | a b) = 1/2.
    const s2 = learn({ sequenceOrder: 2, sequenceLayout: 'rows' }, { attributeNames: ['x1', 'x2', 'x3'], attributeTypes: ['T', 'T', 'T'], data: [['a', 'b', 'c'], ['a', 'b', 'd']] });
    const m2 = mc.build(s2, { algo: 'mc', inputs: [], targets: [], params: {} });
    const [abd, ab, bc, a, ac] = m2.predict({ names: ['x1', 'x2', 'x3'], rows: [['a', 'b', 'd'], ['a', 'b', ''], ['b', 'c', ''], ['a', '', ''], ['a', 'c', '']] });
    expect(abd).toEqual({ next: '', 'next.p': 'NaN', 'seq.like': String(Math.log(2 / 4) + Math.log(0.5)) });
    expect(ab).toEqual({ next: 'c', 'next.p': '0.5', 'seq.like': String(Math.log(2 / 4)) });
    expect(bc).toEqual({ next: '', 'next.p': 'NaN', 'seq.like': String(Math.log(1 / 4)) });
    expect(a).toEqual({ next: 'b', 'next.p': '1', 'seq.like': String(Math.log(2 / 6)) });
    expect(ac['seq.like']).toBe('-Infinity');
  });

  test('sequence_initial=starts: seq.like = ln P(first among starts) + Σ ln P(transition); next ties go to the first state in sorted order', () => {
    const [abb, ba, ab, aa] = model.predict({ names: ['x1', 'x2', 'x3'], rows: [['a', 'b', 'b'], ['b', 'a', ''], ['a', 'b', 'NA'], ['a', 'a', '']] });
    expect(abb).toEqual({ next: 'a', 'next.p': '0.5', 'seq.like': String(Math.log(0.5) + Math.log(1) + Math.log(0.5)) });
    expect(ba).toEqual({ next: 'b', 'next.p': '1', 'seq.like': String(Math.log(0.5) + Math.log(0.5)) });
    expect(ab.next).toBe('a');
    expect(aa).toEqual({ next: 'b', 'next.p': '1', 'seq.like': '-Infinity' });
  });

  test('modelInfo: initial and transition probabilities, counts of states, steps and sequences', () => {
    expect(JSON.parse(model.extra().initial)).toEqual({ a: 0.5, b: 0.5 });
    expect(JSON.parse(model.extra().transitions)).toEqual({ a: { b: 1 }, b: { a: 0.5, b: 0.5 } });
    expect(model.info()).toEqual({ order: '1', layout: 'rows', sequence_initial: 'starts', states: '2', steps: '5', sequences: '2' });
  });

  test('order 2, sequence_initial=starts: the second state uses the order-1 chain, later ones the order-2 chain; an unseen history predicts no next state', () => {
    // Rows: a b c / a b d → P(b | a) = 1, P(c | a b) = P(d | a b) = 1/2.
    const s2 = learn({ sequenceOrder: 2, sequenceLayout: 'rows' }, { attributeNames: ['x1', 'x2', 'x3'], attributeTypes: ['T', 'T', 'T'], data: [['a', 'b', 'c'], ['a', 'b', 'd']] });
    const m2 = mc.build(s2, { algo: 'mc', inputs: [], targets: [], params: { sequence_initial: 'starts' } });
    const [abd, ab, bc] = m2.predict({ names: ['x1', 'x2', 'x3'], rows: [['a', 'b', 'd'], ['a', 'b', ''], ['b', 'c', '']] });
    expect(abd).toEqual({ next: '', 'next.p': 'NaN', 'seq.like': String(Math.log(1) + Math.log(1) + Math.log(0.5)) });
    expect(ab).toEqual({ next: 'c', 'next.p': '0.5', 'seq.like': '0' });
    expect(bc['seq.like']).toBe('-Infinity');
  });

  test('an empty frame predicts nothing', () => {
    expect(model.predict({ names: [], rows: [] })).toEqual([]);
  });
});

describe('mc: choosing the variable', () => {
  const steps = learn({ sequenceOrder: 1 }, { attributeNames: ['weather', 'mood', 'temp'], attributeTypes: ['T', 'S', 'C'], data: [['sun', 'happy', '20'], ['rain', 'sad', '12'], ['sun', 'happy', '19']] });
  const spec = (inputs: string[], params: Record<string, string> = {}) => ({ algo: 'mc', inputs: resolveAttributes(steps, inputs), targets: [], params });

  test('the input attribute (a categorical column arrives as its levels) or parameter [variable] names it', () => {
    expect(mc.build(steps, spec(['weather'])).inputNames).toEqual(['weather']);
    expect(mc.build(steps, spec([], { variable: 'mood' })).inputNames).toEqual(['mood']);
    expect(mc.build(steps, spec(['weather'], { variable: 'weather' })).inputNames).toEqual(['weather']);
  });

  test('refuses, naming what is wrong: several variables, disagreeing names, a continuous input, no sequence project', () => {
    expect(() => mc.build(steps, spec([]))).toThrow(ModelInputError);
    expect(() => mc.build(steps, spec([]))).toThrow('sequence variables mood, weather');
    expect(() => mc.build(steps, spec(['weather'], { variable: 'mood' }))).toThrow('parameter [variable] names [mood] but the inputs name [weather]');
    expect(() => mc.build(steps, spec(['temp']))).toThrow('mc: [temp] is not a sequence variable');
    expect(() => mc.build(steps, spec([], { variable: 'nope' }))).toThrow(/parameter \[variable\] names \[nope\]/);
    expect(() => mc.build(steps, spec(['weather'], { sequence_initial: 'middle' }))).toThrow('parameter [sequence_initial] must be one of ngrams, starts, unigrams');
    const plain = learn({}, { attributeNames: ['x'], attributeTypes: ['C'], data: [['1']] });
    expect(() => mc.build(plain, { algo: 'mc', inputs: [0], targets: [], params: {} })).toThrow('mc needs a sequence project');
  });

  test('rows layout: the row columns as inputs all name the one sequence', () => {
    const s = weatherRow(1);
    expect(mc.build(s, { algo: 'mc', inputs: resolveAttributes(s, ['t1', 't2']), targets: [], params: {} }).inputNames).toEqual(['sequence']);
  });

  test('steps layout: a frame without the variable column and more than one column is refused', () => {
    const model = mc.build(steps, spec(['weather']));
    expect(() => model.predict({ names: ['a', 'b'], rows: [['sun', 'x']] })).toThrow('mc: the frame has no column [weather]');
    expect(model.predict({ names: ['w'], rows: [['sun'], ['rain']] })).toHaveLength(1);
  });

  test('sequenceModels registers mc and hmm by name', () => {
    expect(Object.keys(sequenceModels).sort()).toEqual(['hmm', 'mc']);
    for (const [name, algorithm] of Object.entries(sequenceModels)) expect(algorithm.name).toBe(name);
  });
});
