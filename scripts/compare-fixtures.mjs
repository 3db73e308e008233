// Compares regenerated fixtures with the committed ones number by number: generators run
// on another machine (BLAS build, CPU) differ in the last bits, so equality is relative,
// 1e-12 by default. Usage: node scripts/compare-fixtures.mjs <committed> <regenerated> [tol]
import { readFileSync } from 'node:fs';

const [a, b, tolText] = process.argv.slice(2);
const tol = Number(tolText ?? 1e-12);
let worst = 0;
const diffs = [];
function walk(x, y, path) {
  if (typeof x === 'number' && typeof y === 'number') {
    if (Number.isNaN(x) && Number.isNaN(y)) return;
    const rel = Math.abs(x - y) / Math.max(1, Math.abs(x), Math.abs(y));
    worst = Math.max(worst, rel);
    if (!(rel <= tol)) diffs.push(`${path}: ${x} vs ${y}`);
  } else if (Array.isArray(x) && Array.isArray(y) && x.length === y.length) {
    x.forEach((v, i) => walk(v, y[i], `${path}[${i}]`));
  } else if (x && y && typeof x === 'object' && typeof y === 'object' && !Array.isArray(x) && !Array.isArray(y)) {
    const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
    for (const k of keys) walk(x[k], y[k], `${path}.${k}`);
  } else if (x !== y) {
    diffs.push(`${path}: ${JSON.stringify(x)?.slice(0, 80)} vs ${JSON.stringify(y)?.slice(0, 80)}`);
  }
}
walk(JSON.parse(readFileSync(a, 'utf8')), JSON.parse(readFileSync(b, 'utf8')), '$');
console.log(`${a}: largest relative difference ${worst.toExponential(2)}${diffs.length ? `, ${diffs.length} over ${tol}` : ''}`);
for (const d of diffs.slice(0, 10)) console.log(`  ${d}`);
process.exit(diffs.length ? 1 : 0);
