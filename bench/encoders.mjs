// Encoder learn throughput in process (@sml/stats Encoder, no service, no bus): 10 S keys with
// 10⁵ distinct values each and a B target, BENCH_ROWS rows (default 10⁶) in frames of 10 000
// rows, as the encoders service receives them. Also: state size, stats and encode rates.
// Run after a build: node --expose-gc bench/encoders.mjs   (prints; nothing is appended)
import { createRequire } from 'node:module';
import { machine } from './lib/results.mjs';

const require = createRequire(import.meta.url);
const { Encoder } = require('../packages/stats/dist/index.js');

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const KEYS = 10;
const VALUES = 100_000;
const BATCH = 10_000;
let seed = 7;
// xorshift32: exact in 32-bit integers.
const rand = () => {
  seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
};
const names = [...Array.from({ length: KEYS }, (_, k) => `k${k}`), 'clicked'];
const types = [...Array(KEYS).fill('S'), 'B'];
const frames = [];
for (let start = 0; start < ROWS; start += BATCH) {
  const data = Array.from({ length: Math.min(BATCH, ROWS - start) }, () => [
    ...Array.from({ length: KEYS }, () => `v${Math.floor(rand() * VALUES)}`), rand() < 0.3 ? '1' : '0',
  ]);
  frames.push({ attributeNames: names, attributeTypes: types, data });
}
globalThis.gc?.();
const heap0 = process.memoryUsage().heapUsed;
const encoder = new Encoder({ target: 'clicked', targetType: 'B', minTrimSize: 1 });
const t0 = performance.now();
for (const f of frames) encoder.learn(f);
const learnMs = performance.now() - t0;
globalThis.gc?.();
const heapMb = (process.memoryUsage().heapUsed - heap0) / 2 ** 20;
const t1 = performance.now();
const bytes = encoder.serialize();
const serializeMs = performance.now() - t1;
const t2 = performance.now();
encoder.stats();
const statsMs = performance.now() - t2;
const t3 = performance.now();
let sum = 0;
for (let i = 0; i < 1_000_000; i++) sum += encoder.encode(`k${i % KEYS}`, `v${i % VALUES}`);
const encodeMs = performance.now() - t3;
const m = machine();
console.log(`encoders bench ${m.date} — ${m.cores} cores, ${m.cpu}, Node ${m.node}, load ${m.load}`);
console.log(`learn: ${ROWS} rows × ${KEYS} keys (${encoder.valueCount} distinct values): ${Math.round(ROWS / (learnMs / 1000))} rows/s (${learnMs.toFixed(0)} ms)`);
console.log(`state: ${(bytes.length / 2 ** 20).toFixed(1)} MiB serialized (${serializeMs.toFixed(0)} ms), ~${heapMb.toFixed(0)} MiB heap besides the frames`);
console.log(`stats: ${statsMs.toFixed(0)} ms; encode: ${Math.round(1e6 / (encodeMs / 1000))} values/s (checksum ${sum.toFixed(3)})`);
