/** The privacy gate: n ≥ p + 5, and a change since the last send of 0 or ≥ p + 5. */
import { Summary } from '@sml/stats';
import { gateInputOf, privacyGate } from '@sml/federation';

const gate = (rows: number, attributes: number, changed: number, partitions?: Record<string, number>) =>
  privacyGate({ rows, attributes, changedSinceLastSend: changed, ...(partitions ? { partitions } : {}) });

test('p + 4 rows are withheld, p + 5 sent (first send: every row is a change)', () => {
  expect(gate(7, 3, 7)).toEqual({ send: false, reason: 'withheld: rows=7 below p+5=8 (p=3)' });
  expect(gate(8, 3, 8).send).toBe(true);
});

test('a change of 1 … p+4 rows since the last send is withheld; 0 or p+5 is sent', () => {
  expect(gate(100, 3, 0)).toEqual({ send: true, reason: 'unchanged since the last send: rows=100' });
  expect(gate(100, 3, 1)).toEqual({ send: false, reason: 'withheld: 1 rows changed since the last send, below p+5=8 (p=3)' });
  expect(gate(100, 3, 7).send).toBe(false);
  expect(gate(100, 3, 8).send).toBe(true);
});

test('every partition must itself reach p + 5 rows', () => {
  expect(gate(100, 3, 100, { a: 92, b: 8 }).send).toBe(true);
  expect(gate(100, 3, 100, { a: 93, b: 7 })).toEqual({ send: false, reason: 'withheld: partition [b] has rows=7 below p+5=8 (p=3)' });
});

test('gateInputOf reads rows, expanded attributes and partitions of the shared summary', () => {
  const s = new Summary({ partitionSplit: 'g' });
  s.learn({ attributeNames: ['x', 'color', 'g'], attributeTypes: ['C', 'T', 'T'], data: [['1', 'red', 'a'], ['2', 'blue', 'a'], ['3', 'red', 'b']] });
  expect(gateInputOf(s.shareable(), 2)).toEqual({ rows: 3, attributes: s.attributeNames.length, changedSinceLastSend: 2, partitions: { a: 2, b: 1 } });
});
