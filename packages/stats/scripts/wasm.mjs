// Assembles each src/kernels/*.wat (wasm-lib.mjs MODULES) into its src/kernels/*-wasm.ts (the
// bytes as base64), so the package needs no WebAssembly toolchain at build or run time.
// `--check` exits 1 when a committed file differs from what its .wat assembles to (the kernels
// test runs the same check).
import { readFileSync, writeFileSync } from 'node:fs';
import { MODULES, assemble, kernelPath, moduleSource } from './wasm-lib.mjs';

for (const m of MODULES) {
  const target = kernelPath(m.target);
  const source = moduleSource(m, await assemble(m.wat));
  if (process.argv.includes('--check')) {
    if (readFileSync(target, 'utf8') !== source) {
      console.error(`src/kernels/${m.target} is not ${m.wat} assembled: run npm run wasm -w @sml/stats`);
      process.exit(1);
    }
  } else {
    writeFileSync(target, source);
  }
}
