/**
 * Bad input (API.md §1): strict frames are rejected whole with a FrameError naming row and
 * column; lenient frames skip bad rows and report them; structural problems always throw;
 * forgetting rows that were never learned throws SummaryError and changes nothing.
 */
import { type DataFrame, FrameError, Summary, SummaryError } from '@sml/stats';
import { frame } from './helpers';

function frameError(f: DataFrame, summary = new Summary()): FrameError {
  try {
    summary.learn(f);
  } catch (e) {
    expect(e).toBeInstanceOf(FrameError);
    return e as FrameError;
  }
  throw new Error('expected a FrameError');
}

describe('strict frames (errorHandling 0)', () => {
  test('an unknown type code is rejected, naming the column', () => {
    const e = frameError(frame(['x', 'y'], ['C', 'Q'], [['1', '2']]));
    expect([e.row, e.column]).toEqual([-1, 'y']);
    expect(e.reason).toMatch(/unknown attribute type code \[Q\]/);
  });

  test('a ragged row is rejected, naming the row', () => {
    const e = frameError(frame(['x', 'y'], ['C', 'C'], [['1', '2'], ['3']]));
    expect([e.row, e.column]).toEqual([2, '']);
    expect(e.message).toMatch(/row 2/);
  });

  test('a non-numeric C cell is rejected, naming row and column', () => {
    const e = frameError(frame(['x', 'y'], ['C', 'C'], [['1', '2'], ['3', '4'], ['5', 'abc']]));
    expect([e.row, e.column]).toEqual([3, 'y']);
    expect(e.message).toBe('Invalid DataFrame at row 3, column [y]: [abc] is not a number');
  });

  test.each(['Infinity', '0x10', '1,5', '1e'])('C cell %p is not a number', (cell) => {
    expect(frameError(frame(['x'], ['C'], [[cell]])).column).toBe('x');
  });

  test.each(['2', '0.5', '-1', 'yes'])('B cell %p is not 0 or 1', (cell) => {
    const e = frameError(frame(['b'], ['B'], [['1'], [cell]]));
    expect([e.row, e.column]).toEqual([2, 'b']);
  });

  test('B accepts 0 and 1 in any decimal spelling', () => {
    const s = new Summary();
    s.learn(frame(['b'], ['B'], [['0'], ['1.0'], [' 1 '], ['0e0']]));
    expect(s.moments('b').sum).toBe(2);
  });

  test.each([
    ['no rows', frame(['x'], ['C'], [])],
    ['no attributes', frame([], [], [['1']])],
  ])('an empty frame (%s) is rejected', (_, f) => {
    expect(frameError(f).row).toBe(-1);
  });

  test('duplicate attribute names are rejected', () => {
    expect(frameError(frame(['x', 'x'], ['C', 'C'], [['1', '2']])).column).toBe('x');
  });

  test('names and types of different lengths are rejected', () => {
    expect(frameError(frame(['x', 'y'], ['C'], [['1', '2']])).reason).toMatch(/2 attribute names but 1 attribute types/);
  });

  test('more attributes than maxAttributes (after categorical expansion) are rejected and nothing is learned', () => {
    const s = new Summary({ maxAttributes: 3 });
    s.learn(frame(['x'], ['C'], [['1']]));
    const e = frameError(frame(['x', 'color'], ['C', 'T'], [['1', 'red'], ['2', 'green'], ['3', 'blue']]), s);
    expect(e.column).toBe('color$red');
    expect(e.reason).toMatch(/too many attributes: 4 would exceed the limit of 3/);
    expect(s.attributeNames).toEqual(['x']);
    expect(s.rowCount).toBe(1);
  });

  test('an attribute keeps its type: learning it later as another type is rejected', () => {
    const s = new Summary();
    s.learn(frame(['x', 'color'], ['C', 'T'], [['1', 'red']]));
    expect(frameError(frame(['x'], ['B'], [['1']]), s).reason).toMatch(/already learned as C/);
    expect(frameError(frame(['color'], ['C'], [['1']]), s).reason).toMatch(/categorical/);
    expect(frameError(frame(['x'], ['T'], [['a']]), s).column).toBe('x');
  });

  test('two columns expanding to the same attribute name are rejected', () => {
    const e = frameError(frame(['color', 'color$red'], ['T', 'B'], [['red', '1']]));
    expect(e.column).toBe('color');
    expect(e.reason).toBe('two columns of the frame expand to attribute [color$red]');
  });

  test('a bad row anywhere means nothing of the frame is learned', () => {
    const s = new Summary({ histogram: 'streaming', partitionSplit: 'g', km_time_column: 't', km_event_column: 'e', sequenceOrder: 1 });
    const f = frame(['x', 'g', 't', 'e'], ['C', 'T', 'C', 'C'], [['1', 'a', '1', '1'], ['2', 'b', '2', '1.5']]);
    expect(frameError(f, s).reason).toMatch(/survival event/);
    expect(s.rowCount).toBe(0);
    expect(s.attributeNames).toEqual([]);
    expect(s.partitionValues()).toEqual([]);
    expect(s.survival!.groups()).toEqual([]);
  });

  test('every spelling of a missing cell is missing', () => {
    const s = new Summary();
    s.learn(frame(['x', 'c'], ['C', 'T'], [[''], [' NA '], ['nan'], ['NaN'], ['null'], ['NULL'], ['?'], ['4']].map(([v]) => [v, v])));
    expect(s.count('x')).toBe(1);
    expect(s.missing('x')).toBe(7);
    expect(s.attributeNames).toEqual(['x', 'c$4']);
  });
});

describe('lenient frames (errorHandling 1)', () => {
  test('bad rows are skipped and reported; good rows are learned', () => {
    const s = new Summary();
    const data = [['1', '0'], ['x', '1'], ['2'], ['3', '7'], ['4', '1']];
    const report = s.learn(frame(['c', 'b'], ['C', 'B'], data, 1));
    expect(report.rowsLearned).toBe(2);
    expect(report.rowsSkipped).toBe(3);
    expect(report.errors).toEqual([
      'Invalid DataFrame at row 2, column [c]: [x] is not a number',
      'Invalid DataFrame at row 3: the row has 1 cells, expected 2',
      'Invalid DataFrame at row 4, column [b]: [7] is not 0 or 1',
    ]);
    expect(s.rowCount).toBe(2);
    expect(s.mean('c')).toBe(2.5);
  });

  test('the report keeps at most 10 errors but counts every skipped row', () => {
    const data = Array.from({ length: 25 }, (_, i) => [i % 2 === 0 ? 'bad' : String(i)]);
    const report = new Summary().learn(frame(['c'], ['C'], data, 1));
    expect(report).toMatchObject({ rowsLearned: 12, rowsSkipped: 13 });
    expect(report.errors).toHaveLength(10);
  });

  test('structural errors still throw', () => {
    expect(() => new Summary().learn(frame(['x'], ['Z'], [['1']], 1))).toThrow(FrameError);
    expect(() => new Summary().learn(frame(['x', 'x'], ['C', 'C'], [['1', '1']], 1))).toThrow(FrameError);
    expect(() => new Summary().learn(frame(['x'], ['C'], [], 1))).toThrow(FrameError);
  });
});

describe('forgetting rows that were never learned', () => {
  const learned = () => {
    const s = new Summary({ histogram: 'streaming', partitionSplit: 'color' });
    s.learn(frame(['x', 'color'], ['C', 'T'], [['1', 'red'], ['2', 'blue'], ['3', 'red']]));
    return s;
  };

  test.each([
    ['more rows than learned', [['1', 'red'], ['2', 'blue'], ['3', 'red'], ['1', 'red']]],
    ['a categorical value never learned', [['1', 'green']]],
    ['a value never learned (histogram bin)', [['1000', 'red']]],
    ['a level count that would go negative', [['1', 'blue'], ['3', 'blue']]],
  ])('%s throws SummaryError and leaves the summary unchanged', (_, data) => {
    const s = learned();
    const before = s.serialize();
    expect(() => s.forget(frame(['x', 'color'], ['C', 'T'], data))).toThrow(SummaryError);
    expect(Buffer.from(s.serialize()).equals(Buffer.from(before))).toBe(true);
  });

  test('an attribute never learned throws, naming it', () => {
    const s = learned();
    expect(() => s.forget(frame(['y'], ['C'], [['1']]))).toThrow(expect.objectContaining({ attribute: 'y' }));
  });

  test('an attribute never learned but missing in every forgotten row is fine', () => {
    const s = learned();
    s.forget(frame(['x', 'color', 'y'], ['C', 'T', 'C'], [['1', 'red', '']]));
    expect(s.rowCount).toBe(2);
    expect(s.attributeNames).toEqual(['x', 'color$blue', 'color$red']);
  });

  test('subtracting a summary built with other options throws', () => {
    expect(() => learned().merge(new Summary(), -1)).toThrow(/different options/);
    expect(() => learned().merge(new Summary({ histogram: 'exact' }))).toThrow(SummaryError);
  });
});

test('invalid options throw SummaryError', () => {
  expect(() => new Summary({ sequenceOrder: 0 })).toThrow(/sequenceOrder/);
  expect(() => new Summary({ km_time_column: 't' })).toThrow(/go together/);
  expect(() => new Summary({ histogram: 'bins' as never })).toThrow(/histogram/);
  expect(() => new Summary({ categorySeparator: '' })).toThrow(/categorySeparator/);
});

test('reading an unknown attribute throws SummaryError naming it', () => {
  const s = new Summary();
  s.learn(frame(['x'], ['C'], [['1']]));
  expect(() => s.mean('nope')).toThrow(expect.objectContaining({ attribute: 'nope' }));
  expect(() => s.covariance(['x', 3])).toThrow(SummaryError);
});

test('a damaged serialization throws SummaryError', () => {
  const s = new Summary();
  s.learn(frame(['x'], ['C'], [['1']]));
  const bytes = s.serialize();
  expect(() => Summary.deserialize(bytes.slice(0, bytes.length - 3))).toThrow(SummaryError);
  expect(() => Summary.deserialize(new Uint8Array([1, 2, 3, 4, 1, 0, 0, 0]))).toThrow(/bad magic/);
  const future = bytes.slice();
  future[4] = 99;
  expect(() => Summary.deserialize(future)).toThrow(/version 99/);
});
