// Assembles src/kernels/gram.wat into src/kernels/gram-wasm.ts (the bytes as base64), so the
// package needs no WebAssembly toolchain at build or run time. `--check` exits 1 when the
// committed file differs from what the .wat assembles to (the kernels test runs the same check).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { assembleGram, gramModuleSource } from './wasm-lib.mjs';

const target = fileURLToPath(new URL('../src/kernels/gram-wasm.ts', import.meta.url));
const source = gramModuleSource(await assembleGram());
if (process.argv.includes('--check')) {
  if (readFileSync(target, 'utf8') !== source) {
    console.error('src/kernels/gram-wasm.ts is not gram.wat assembled: run npm run wasm -w @sml/stats');
    process.exit(1);
  }
} else {
  writeFileSync(target, source);
}
