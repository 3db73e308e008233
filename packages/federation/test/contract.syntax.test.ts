/** Contract grammar: precedence, parentheses, quoting, comments, case, aliases and every syntax error collected. */
import { type Expr, parseContract } from '@sml/federation';

/** An expression as a compact string: (a AND b) OR c with calls as FN(args)op value. */
function show(e: Expr): string {
  if (e.kind === 'compare') return `${e.call.text}${e.op}${e.value}`;
  return `(${e.items.map(show).join(e.kind === 'and' ? ' AND ' : ' OR ')})`;
}
const one = (line: string) => {
  const p = parseContract([line]);
  expect(p.problems).toEqual([]);
  return show(p.lines[0].expr);
};
const problem = (line: string) => parseContract([line]).problems.map((p) => p.reason);

test('AND binds tighter than OR; parentheses group', () => {
  expect(one('MEAN(a) > 1 OR MEAN(b) > 2 AND MEAN(c) > 3')).toBe('(MEAN(a)>1 OR (MEAN(b)>2 AND MEAN(c)>3))');
  expect(one('(MEAN(a) > 1 OR MEAN(b) > 2) AND MEAN(c) > 3')).toBe('((MEAN(a)>1 OR MEAN(b)>2) AND MEAN(c)>3)');
  expect(one('((COUNT(a)>=10))')).toBe('COUNT(a)>=10');
});

test('keywords and function names are case-insensitive; = reads as ==; every operator', () => {
  expect(one('mean(a)>1 and Count(b)<=2 oR stddev(c)!=3')).toBe('((MEAN(a)>1 AND COUNT(b)<=2) OR STDDEV(c)!=3)');
  expect(one('MEAN(a)=1')).toBe('MEAN(a)==1');
  expect(['>=', '>', '<=', '<', '==', '!='].map((op) => one(`MEAN(a)${op}0`))).toEqual(['>=', '>', '<=', '<', '==', '!='].map((op) => `MEAN(a)${op}0`));
});

test('numbers: sign, decimals, exponents', () => {
  expect(one('MEAN(a) > -1.5e-3')).toBe('MEAN(a)>-0.0015');
  expect(one('MEAN(a) >= +2E2')).toBe('MEAN(a)>=200');
  for (const bad of ['1.', '.5', '1e', '--1', '1.2.3', 'x']) expect(problem(`MEAN(a) > ${bad}`)).toHaveLength(1);
});

test('attributes: bare with . $ : - _, or quoted with \\" and \\\\ escapes', () => {
  expect(one('COND_MEAN(age.years, color$red) > 1')).toBe('COND_MEAN(age.years, color$red)>1');
  expect(one('MEAN(a:b-c_9) > 1')).toBe('MEAN(a:b-c_9)>1');
  const p = parseContract(['MEAN("blood pressure \\"sys\\" \\\\ mmHg") > 1']);
  expect(p.lines[0].expr.kind === 'compare' && p.lines[0].expr.call.args).toEqual(['blood pressure "sys" \\ mmHg']);
  expect(p.lines[0].expr.kind === 'compare' && p.lines[0].expr.call.text).toBe('MEAN("blood pressure \\"sys\\" \\\\ mmHg")');
});

test('aliases: COND_COUNT, COND_MEAN, the NUM_OCCURRENCE_ spelling read as NUM_OCCURENCE_', () => {
  expect(one('cond_count(a, b) > 1 AND COND_MEAN(a, b) > 1')).toBe('(COND_COUNT(a, b)>1 AND COND_MEAN(a, b)>1)');
  expect(one('NUM_OCCURRENCE_WHEN_TRUE(a, b) > 1')).toBe('NUM_OCCURENCE_WHEN_TRUE(a, b)>1');
  expect(one('num_occurence_when_false(a, b) > 1')).toBe('NUM_OCCURENCE_WHEN_FALSE(a, b)>1');
});

test('blank lines and # comments are skipped but keep their line numbers', () => {
  const p = parseContract(['# rules', '', '   ', 'COUNT(a) >= 10', '  # indented comment', 'MEAN(a) > 0']);
  expect(p.lines.map((l) => l.line)).toEqual([4, 6]);
});

test.each([
  ['FOO(a) > 1', 'unknown function [FOO] at column 1'],
  ['MEAN(a, b) > 1', 'MEAN takes 1 attribute, not 2'],
  ['COVAR(a) > 1', 'COVAR takes 2 attributes, not 1'],
  ['MEAN(a) > 1 AND', 'unexpected end of line, expected a function or [(]'],
  ['MEAN(a) 1', 'unexpected [1] at column 9, expected a comparison (>=, >, <=, <, ==, !=)'],
  ['(MEAN(a) > 1', 'unexpected end of line, expected [)]'],
  ['MEAN(a) > 1)', 'unexpected [)] at column 12, expected AND, OR or the end of the line'],
  ['MEAN(a) > 1 MEAN(b) > 2', 'unexpected [MEAN] at column 13, expected AND, OR or the end of the line'],
  ['MEAN(a+b) > 1', 'invalid attribute name [a+b] at column 6 (quote it)'],
  ['MEAN("a) > 1', 'unterminated quoted attribute at column 6'],
  ['MEAN("a\\n") > 1', 'invalid escape in quoted attribute at column 8'],
  ['MEAN("") > 1', 'empty attribute name at column 6'],
  ['MEAN(a) ! 1', 'unexpected [!] at column 9'],
  ['MEAN(a) > 1 ; drop', 'unexpected [;] at column 13'],
  ['MEAN a > 1', 'unexpected [a] at column 6, expected [(]'],
])('%j: %s', (line, reason) => {
  expect(problem(line)).toEqual([reason]);
});

test('every line with an error is reported, with its line number', () => {
  const p = parseContract(['COUNT(a) > 1', 'FOO(a) > 1', '# ok', 'MEAN(a) >', 'MEAN(b) < 2']);
  expect(p.problems).toEqual([{ line: 2, reason: 'unknown function [FOO] at column 1' }, { line: 4, reason: 'unexpected end of line, expected a number' }]);
  expect(p.lines.map((l) => l.line)).toEqual([1, 5]);
});
