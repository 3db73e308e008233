/**
 * Sequence counts (STATS.md §7). References: hand counts, and for weather.seq the
 * independent counter fixtures/gen_sequence.py.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { ROWS_LAYOUT_VARIABLE, Summary, SummaryError } from '@sml/stats';
import { frame, sequenceCounts, dataFile } from './helpers';

const pairsOf = (m: Map<string, Map<string, number>>) => [...m].flatMap(([from, row]) => [...row].map(([to, n]) => [from, to, n]));

describe('rows layout: each row is one whole sequence', () => {
  test('weather.seq counts equal an independent python count', () => {
    const tokens = readFileSync(dataFile('weather.seq'), 'utf8').split(',');
    const expected = JSON.parse(readFileSync(join(__dirname, 'fixtures/sequence_weather.json'), 'utf8'));
    expect(tokens).toHaveLength(expected.tokens);
    const s = new Summary({ sequenceOrder: 2, sequenceLayout: 'rows' });
    s.learn(frame(tokens.map((_, i) => `t${i + 1}`), tokens.map(() => 'S'), [tokens]));
    const seq = s.sequences!;
    expect(seq.variableNames()).toEqual([ROWS_LAYOUT_VARIABLE]);
    expect(Object.fromEntries(seq.unigrams(ROWS_LAYOUT_VARIABLE))).toEqual(expected.unigrams);
    expect(Object.fromEntries(seq.starts(ROWS_LAYOUT_VARIABLE))).toEqual(expected.starts);
    expect(pairsOf(seq.lagPairs(ROWS_LAYOUT_VARIABLE, 1))).toEqual(expected.lag1);
    expect(pairsOf(seq.lagPairs(ROWS_LAYOUT_VARIABLE, 2))).toEqual(expected.lag2);
    expect(seq.ngrams(ROWS_LAYOUT_VARIABLE, 3).map((g) => [g.states, g.count])).toEqual(expected.trigrams);
  });

  test('states are trimmed and lower-cased; a missing cell is a gap no pair spans; X columns are skipped', () => {
    const s = new Summary({ sequenceOrder: 2, sequenceLayout: 'rows' });
    s.learn(frame(['a', 'b', 'c', 'd', 'e'], ['S', 'S', 'X', 'S', 'S'], [[' A', 'b', 'zz', '', 'B'], ['NA', 'b', 'zz', 'a', 'b']]));
    const seq = s.sequences!;
    // Row 1 is a b _ b, row 2 is _ b a b.
    expect(Object.fromEntries(seq.unigrams('sequence'))).toEqual({ a: 2, b: 4 });
    // The second row starts at its first present state.
    expect(Object.fromEntries(seq.starts('sequence'))).toEqual({ a: 1, b: 1 });
    expect(pairsOf(seq.lagPairs('sequence', 1))).toEqual([['a', 'b', 2], ['b', 'a', 1]]);
    expect(pairsOf(seq.lagPairs('sequence', 2))).toEqual([['b', 'b', 2]]);
    expect(seq.ngrams('sequence', 3)).toEqual([{ states: ['b', 'a', 'b'], count: 1 }]);
  });

  test('forget subtracts exactly what learning the rows added', () => {
    const s = new Summary({ sequenceOrder: 1, sequenceLayout: 'rows' });
    const f = frame(['a', 'b', 'c'], ['T', 'T', 'T'], [['x', 'y', 'x']]);
    s.learn(frame(['a', 'b', 'c'], ['T', 'T', 'T'], [['y', 'y', 'y']]));
    const before = sequenceCounts(s);
    s.learn(f);
    s.forget(f);
    expect(sequenceCounts(s)).toEqual(before);
    expect(() => s.forget(f)).toThrow(SummaryError);
  });
});

describe('steps layout: rows are time steps, one running sequence per variable', () => {
  const weatherMood = (rows: string[][]) => frame(['weather', 'mood', 'temp'], ['T', 'S', 'C'], rows);

  test('hand-counted unigrams, starts, lags, n-grams and same-step co-occurrences, continued across learn calls', () => {
    const s = new Summary({ sequenceOrder: 2 });
    s.learn(weatherMood([['sun', 'happy', '20'], ['sun', 'happy', '21']]));
    s.learn(weatherMood([['rain', 'sad', '12'], ['', 'sad', '11'], ['sun', 'happy', '19']]));
    const seq = s.sequences!;
    expect(seq.variableNames()).toEqual(['mood', 'weather']);
    expect(Object.fromEntries(seq.unigrams('weather'))).toEqual({ sun: 3, rain: 1 });
    expect(Object.fromEntries(seq.starts('weather'))).toEqual({ sun: 1 });
    // sun→sun, sun→rain (across the learn calls); the gap at step 4 breaks rain→sun.
    expect(pairsOf(seq.lagPairs('weather', 1))).toEqual([['sun', 'rain', 1], ['sun', 'sun', 1]]);
    expect(pairsOf(seq.lagPairs('weather', 2))).toEqual([['rain', 'sun', 1], ['sun', 'rain', 1]]);
    expect(seq.ngrams('weather', 3)).toEqual([{ states: ['sun', 'sun', 'rain'], count: 1 }]);
    expect(pairsOf(seq.lagPairs('mood', 1))).toEqual([['happy', 'happy', 1], ['happy', 'sad', 1], ['sad', 'happy', 1], ['sad', 'sad', 1]]);
    expect(pairsOf(seq.cooccurrences('weather', 'mood'))).toEqual([['rain', 'sad', 1], ['sun', 'happy', 3]]);
    expect(pairsOf(seq.cooccurrences('mood', 'weather'))).toEqual([['happy', 'sun', 3], ['sad', 'rain', 1]]);
  });

  test('a variable absent from a frame is missing at each of its steps', () => {
    const s = new Summary({ sequenceOrder: 1 });
    s.learn(weatherMood([['sun', 'happy', '1']]));
    s.learn(frame(['mood'], ['S'], [['sad']]));
    s.learn(weatherMood([['rain', 'sad', '1']]));
    expect(pairsOf(s.sequences!.lagPairs('weather', 1))).toEqual([]);
    expect(pairsOf(s.sequences!.lagPairs('mood', 1))).toEqual([['happy', 'sad', 1], ['sad', 'sad', 1]]);
  });

  test('learning in chunks equals learning at once', () => {
    const state = fc.constantFrom('sun', 'rain', 'Fog', '');
    fc.assert(
      fc.property(fc.array(fc.tuple(state, state), { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 7 }), (steps, chunk) => {
        const rows = steps.map(([w, m]) => [w, m, '1']);
        const whole = new Summary({ sequenceOrder: 3 });
        whole.learn(weatherMood(rows));
        const chunked = new Summary({ sequenceOrder: 3 });
        for (let at = 0; at < rows.length; at += chunk) chunked.learn(weatherMood(rows.slice(at, at + chunk)));
        expect(sequenceCounts(chunked)).toEqual(sequenceCounts(whole));
      }),
    );
  });

  test('forget subtracts the counts inside the frame; pairs into it from the previous frame and the start stay', () => {
    const s = new Summary({ sequenceOrder: 1 });
    s.learn(weatherMood([['sun', 'happy', '1']]));
    const last = weatherMood([['rain', 'sad', '1'], ['fog', 'sad', '1']]);
    s.learn(last);
    s.forget(last);
    const seq = s.sequences!;
    expect(Object.fromEntries(seq.unigrams('weather'))).toEqual({ sun: 1 });
    expect(Object.fromEntries(seq.starts('weather'))).toEqual({ sun: 1 });
    expect(pairsOf(seq.lagPairs('weather', 1))).toEqual([['sun', 'rain', 1]]);
    expect(pairsOf(seq.cooccurrences('mood', 'weather'))).toEqual([['happy', 'sun', 1]]);
    // The numeric summary is still an exact inverse.
    expect(s.rowCount).toBe(1);
  });

  test('reading an unknown variable or an out-of-range lag throws', () => {
    const s = new Summary({ sequenceOrder: 1 });
    s.learn(weatherMood([['sun', 'happy', '1']]));
    expect(() => s.sequences!.unigrams('nope')).toThrow(SummaryError);
    expect(() => s.sequences!.lagPairs('weather', 2)).toThrow(/lag/);
    expect(() => s.sequences!.ngrams('weather', 3)).toThrow(/length/);
  });
});
