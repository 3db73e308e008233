/**
 * The parser against generated contracts: any expression tree, written with random case, spacing,
 * redundant parentheses and quoting, parses back to the same tree (precedence: AND over OR).
 */
import fc from 'fast-check';
import { CONTRACT_FUNCTIONS, type Expr, parseContract } from '@sml/federation';

const NAMES = Object.keys(CONTRACT_FUNCTIONS);
const OPS = ['>=', '>', '<=', '<', '==', '!='] as const;
const attribute = fc.oneof(fc.stringMatching(/^[A-Za-z0-9_.$:-]{1,8}$/), fc.string({ minLength: 1, maxLength: 8 }));
const compare: fc.Arbitrary<Expr> = fc.record({
  fn: fc.constantFrom(...NAMES),
  a: attribute,
  b: attribute,
  op: fc.constantFrom(...OPS),
  value: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).map((v) => Math.round(v * 1000) / 1000 + 0),
}).map(({ fn, a, b, op, value }) => {
  const args = CONTRACT_FUNCTIONS[fn].args.length === 1 ? [a] : [a, b];
  return { kind: 'compare', call: { fn, args, text: '' }, op, value };
});
const { expr } = fc.letrec<{ expr: Expr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    compare,
    fc.record({ kind: fc.constantFrom('and' as const, 'or' as const), items: fc.array(tie('expr'), { minLength: 2, maxLength: 3 }) }),
  ),
}));

/** Writes a tree as contract text: parentheses only where precedence needs them (plus random extra ones). */
function write(e: Expr, noise: () => number): string {
  const sp = () => (noise() < 0.5 ? ' ' : '  ');
  const randomCase = (s: string) => [...s].map((c) => (noise() < 0.5 ? c.toLowerCase() : c.toUpperCase())).join('');
  let text: string;
  if (e.kind === 'compare') {
    const arg = (a: string) => (/^[A-Za-z0-9_.$:-]+$/.test(a) && noise() < 0.7 ? a : `"${a.replace(/[\\"]/g, (c) => `\\${c}`)}"`);
    text = `${randomCase(e.call.fn)}(${e.call.args.map(arg).join(`,${sp()}`)})${sp()}${e.op}${sp()}${e.value}`;
  } else {
    // An OR inside an AND needs its parentheses; one inside an OR gets them too (it reads the same flattened).
    text = e.items.map((i) => (i.kind === 'or' ? `(${write(i, noise)})` : write(i, noise))).join(`${sp()}${randomCase(e.kind)}${sp()}`);
  }
  return noise() < 0.2 ? `(${text})` : text;
}

/** The tree without call texts, nested same-kind groups flattened (a AND (b AND c) = a AND b AND c). */
function shape(e: Expr): unknown {
  if (e.kind === 'compare') return [e.call.fn, e.call.args, e.op, e.value];
  return [e.kind, e.items.flatMap((i) => (i.kind === e.kind ? (shape(i) as [string, unknown[]])[1] : [shape(i)]))];
}

test('written with any case, spacing, quoting and extra parentheses, a contract parses to its tree', () => {
  fc.assert(fc.property(expr, fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true })), (e, stream) => {
    const it = stream[Symbol.iterator]();
    const text = write(e, () => it.next().value as number);
    const parsed = parseContract([text]);
    expect(parsed.problems).toEqual([]);
    expect(shape(parsed.lines[0].expr)).toEqual(shape(e));
  }), { numRuns: 300 });
});
