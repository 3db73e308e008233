/** Contract evaluation: lines must all hold; NaN makes every comparison false; the log names calls and values. */
import { Summary } from '@sml/stats';
import { evaluateContract, parseContract } from '@sml/federation';

const summary = new Summary();
// x = 1..10, b = 1 on even rows.
summary.learn({ attributeNames: ['x', 'b'], attributeTypes: ['C', 'B'], data: Array.from({ length: 10 }, (_, i) => [String(i + 1), String((i + 1) % 2 === 0 ? 1 : 0)]) });
const run = (...lines: string[]) => {
  const p = parseContract(lines);
  expect(p.problems).toEqual([]);
  return evaluateContract(p.lines, summary);
};

test('every line must hold; each line reports every call and its value', () => {
  const r = run('COUNT(x) == 10 AND MEAN(x) = 5.5', 'COND_MEAN(x, b) == 6 OR MEAN(x) > 100');
  expect(r.pass).toBe(true);
  expect(r.lines).toEqual([
    { line: 1, result: true, values: { 'COUNT(x)': 10, 'MEAN(x)': 5.5 } },
    { line: 2, result: true, values: { 'COND_MEAN(x, b)': 6, 'MEAN(x)': 5.5 } },
  ]);
});

test('precedence decides the result: a OR b AND c is a OR (b AND c)', () => {
  expect(run('MEAN(x) > 5 OR MEAN(x) > 100 AND MEAN(x) < 0').pass).toBe(true);
  expect(run('(MEAN(x) > 5 OR MEAN(x) > 100) AND MEAN(x) < 0').pass).toBe(false);
});

test('a failing line is logged with its calls and values', () => {
  const r = run('COUNT(x) >= 10', 'MEAN(x) > 6 AND COUNT(b) >= 1');
  expect(r.pass).toBe(false);
  expect(r.failures).toEqual(['Contract line 2 failed: MEAN(x)=5.5, COUNT(b)=10']);
});

test('NaN (absent attribute, division by zero) fails every comparison, != included', () => {
  for (const op of ['>=', '>', '<=', '<', '==', '!=']) expect(run(`MEAN(missing) ${op} 0`).pass).toBe(false);
  const r = run('VARIANCE_UNBIASED(x) > 0 AND PCT_OF_TRUE(b, b) != 0 AND COND_MEAN(x, missing) != 1');
  expect(r.failures).toEqual(['Contract line 1 failed: VARIANCE_UNBIASED(x)=9.166666666666666, PCT_OF_TRUE(b, b)=100, COND_MEAN(x, missing)=NaN']);
  expect(run('MEAN(missing) < 0 OR COUNT(x) > 0').pass).toBe(true);
});

test('a contract without lines passes', () => {
  expect(run('# only a comment', '')).toEqual({ pass: true, lines: [], failures: [] });
});
