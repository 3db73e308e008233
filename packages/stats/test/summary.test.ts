/**
 * The summary's behaviour on small hand-checkable frames: attributes appended on the fly,
 * categorical expansion, partitions, extremes, histogram-backed min/max/median.
 */
import { Matrix } from 'ml-matrix';
import { Summary } from '@sml/stats';
import { frame } from './helpers';

test('attributes are appended on the fly; an attribute absent from a frame is missing in its rows', () => {
  const s = new Summary();
  s.learn(frame(['x'], ['C'], [['1'], ['3']]));
  s.learn(frame(['y', 'x'], ['C', 'C'], [['10', '5']]));
  expect(s.attributeNames).toEqual(['x', 'y']);
  expect(s.indexOf('y')).toBe(1);
  expect(s.indexOf('z')).toBe(-1);
  expect([s.count('x'), s.count('y'), s.missing('y')]).toEqual([3, 1, 2]);
  expect(s.comoments('x', 'y')).toEqual({ count: 1, sumX: 5, sumY: 10, sumXX: 25, sumYY: 100, sumXY: 50, sumXXYY: 2500 });
  expect(s.comoments('y', 'x')).toMatchObject({ sumX: 10, sumY: 5 });
});

test('categorical values expand to binary attributes <name>$<value>, trimmed and lower-cased, with a custom separator', () => {
  const s = new Summary({ categorySeparator: ':' });
  s.learn(frame(['c'], ['T'], [[' Red'], ['blue'], ['RED '], ['']]));
  expect(s.attributeNames).toEqual(['c:blue', 'c:red']);
  expect(s.attributeTypes).toEqual(['B', 'B']);
  expect([s.count('c:red'), s.mean('c:red'), s.missing('c:red')]).toEqual([3, 2 / 3, 1]);
});

test('a level first seen later is 0 in every earlier row where its attribute was present', () => {
  const later = new Summary();
  later.learn(frame(['x', 'c'], ['C', 'T'], [['1', 'red'], ['2', ''], ['3', 'red']]));
  later.learn(frame(['x', 'c'], ['C', 'T'], [['4', 'blue']]));
  later.learn(frame(['x'], ['C'], [['5']]));
  const green = 'c$green';
  later.learn(frame(['c'], ['T'], [['green']]));
  expect(later.attributeNames).toEqual(['x', 'c$red', 'c$blue', green]);
  // c present in rows 1, 3, 4 and 6: blue and green are 0 in the earlier of those.
  expect([later.count('c$blue'), later.moments('c$blue').sum]).toEqual([4, 1]);
  expect([later.count(green), later.moments(green).sum]).toEqual([4, 1]);
  expect(later.comoments('x', 'c$blue')).toEqual({ count: 3, sumX: 8, sumY: 1, sumXX: 26, sumYY: 1, sumXY: 4, sumXXYY: 16 });
  expect(later.comoments('c$red', 'c$blue')).toMatchObject({ count: 4, sumX: 2, sumY: 1, sumXY: 0 });
  expect([later.min('c$blue'), later.max('c$blue')]).toEqual([0, 1]);
});

test('covariance and correlation are ml-matrix matrices, pairwise-complete, population unless unbiased', () => {
  const s = new Summary();
  s.learn(frame(['x', 'y', 'k'], ['C', 'C', 'C'], [['1', '2', '7'], ['2', '4', '7'], ['3', '', '7'], ['', '9', '7']]));
  const cov = s.covariance(['x', 'y', 2]);
  expect(cov).toBeInstanceOf(Matrix);
  expect(cov.to2DArray()).toEqual([
    [2 / 3, 0.5, 0],
    [0.5, 26 / 3, 0],
    [0, 0, 0],
  ]);
  expect(s.covariance(['x', 'y'], { unbiased: true }).get(0, 1)).toBe(1);
  const corr = s.correlation(['x', 'y', 'k']);
  expect(corr.get(0, 1)).toBe(1);
  expect(corr.get(0, 0)).toBe(1);
  // A constant attribute has no correlation.
  expect(corr.get(2, 2)).toBeNaN();
  expect(corr.get(0, 2)).toBeNaN();
});

test('conditional moments of x over rows where binary b = 1', () => {
  const s = new Summary();
  s.learn(frame(['x', 'b'], ['C', 'B'], [['1', '1'], ['3', '1'], ['10', '0'], ['', '1'], ['8', '1']]));
  const m = s.conditionalMoments('x', 'b');
  expect([m.count, m.mean]).toEqual([3, 4]);
  expect(m.variance).toBeCloseTo(26 / 3, 14);
});

test('each partition value gets a full sub-summary; rows with a missing value are only in the overall summary', () => {
  const s = new Summary({ partitionSplit: 'species', histogram: 'exact' });
  s.learn(frame(['x', 'species'], ['C', 'T'], [['1', 'Setosa'], ['2', ' setosa'], ['5', 'virginica'], ['7', '']]));
  expect(s.partitionValues()).toEqual(['setosa', 'virginica']);
  const setosa = s.partition('setosa')!;
  expect([setosa.rowCount, setosa.mean('x'), setosa.median('x')]).toEqual([2, 1.5, 1.5]);
  expect(setosa.attributeNames).toEqual(['x', 'species$setosa']);
  expect(s.partition('virginica')!.mean('x')).toBe(5);
  expect(s.partition('nope')).toBeUndefined();
  expect([s.rowCount, s.mean('x')]).toEqual([4, 15 / 4]);
});

test('forget keeps the extremes ever learned; an exact histogram still knows the current ones', () => {
  const plain = new Summary();
  const exact = new Summary({ histogram: 'exact' });
  for (const s of [plain, exact]) {
    s.learn(frame(['x'], ['C'], [['1'], ['5'], ['9']]));
    s.forget(frame(['x'], ['C'], [['9'], ['1']]));
  }
  expect([plain.min('x'), plain.max('x'), plain.moments('x').max]).toEqual([1, 9, 9]);
  expect([exact.min('x'), exact.max('x'), exact.median('x')]).toEqual([5, 5, 5]);
  expect(plain.median('x')).toBeNaN();
});

test('without rows, means and variances are NaN and extremes are NaN', () => {
  const s = new Summary();
  s.learn(frame(['x'], ['C'], [['']]));
  expect([s.count('x'), s.mean('x'), s.variance('x'), s.min('x'), s.max('x')]).toEqual([0, NaN, NaN, NaN, NaN]);
  expect(s.variance('x', { unbiased: true })).toBeNaN();
});

test('a streaming histogram of a categorical level counts its zeros, including rows learned before the level', () => {
  const s = new Summary({ histogram: 'streaming' });
  s.learn(frame(['c'], ['T'], [['a'], ['a'], ['']]));
  s.learn(frame(['c'], ['T'], [['b']]));
  expect(s.histogram('c$b')!.toBins().map((b) => [b.lower, b.count])).toEqual([
    [0, 2],
    [1, 1],
  ]);
});

describe('prepare and commit (validate first, change later)', () => {
  const enc = new TextEncoder();
  const body = (rows: string[][]) => enc.encode(JSON.stringify(frame(['x', 'y'], ['C', 'C'], rows)));

  test('prepare changes nothing; commit applies exactly what learnJson would', () => {
    const s = new Summary({ histogram: 'streaming' });
    s.learnJson(body([['1', '2'], ['3', '5']]));
    const before = s.hash();
    const change = s.prepare('learn', { json: body([['4', '4'], ['0', '-1']]) });
    expect(s.hash()).toBe(before);
    expect(change.report.rowsLearned).toBe(2);
    change.commit();
    const direct = new Summary({ histogram: 'streaming' });
    direct.learnJson(body([['1', '2'], ['3', '5'], ['4', '4'], ['0', '-1']]));
    expect(s.hash()).toBe(direct.hash());
  });

  test('a bad frame or a forget of rows never learned fails in prepare, before anything changes', () => {
    const s = new Summary({ histogram: 'streaming' });
    s.learnJson(body([['1', '2']]));
    const before = s.hash();
    expect(() => s.prepare('learn', { json: body([['1', 'x']]) })).toThrow(/x|numeric|number/i);
    expect(() => s.prepare('forget', { json: body([['1', '2'], ['7', '8']]) })).toThrow();
    expect(s.hash()).toBe(before);
    const forget = s.prepare('forget', { frame: frame(['x', 'y'], ['C', 'C'], [['1', '2']]) });
    expect(s.hash()).toBe(before);
    forget.commit();
    expect(s.rowCount).toBe(0);
  });
});
