/**
 * What the build made of the cross-product kernels (kernels.test.ts tests the kernels
 * themselves): the committed WebAssembly bytes against their source (wabt), and the native
 * kernel wherever this machine has what it takes to build it (a C compiler, asked with `cc`).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { GramKernel } from '../src/kernels/gram';
import { selectKernels } from '../src/kernels/select';

afterEach(() => selectKernels());

test('the committed WebAssembly is gram.wat assembled', () => {
  // Exits 1 naming the fix when src/kernels/gram-wasm.ts differs from what wabt makes of gram.wat.
  execFileSync(process.execPath, [path.join(__dirname, '../scripts/wasm.mjs'), '--check'], { stdio: 'pipe' });
});

/** Whether this machine should have the native kernel: a CPU with AVX2 and FMA (Linux), and a C compiler with Node's headers to build it. */
function nativeExpected(): boolean {
  let flags = '';
  try {
    flags = readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return false;
  }
  const compiler = spawnSync(process.env.CC ?? 'cc', ['--version']).status === 0;
  const headers = ['/usr', '/usr/local', path.dirname(path.dirname(process.execPath))].some((d) => existsSync(path.join(d, 'include/node/node_api.h')));
  return /\bavx2\b/.test(flags) && /\bfma\b/.test(flags) && compiler && headers && process.env.SML_STATS_NATIVE !== '0';
}

/** The kernels this machine should run, best first (kernels.test.ts tests each one the build has). */
const kernels: GramKernel['name'][] = nativeExpected() ? ['native', 'wasm', 'js'] : ['wasm', 'js'];

test('where the CPU has AVX2 and FMA and a C compiler is at hand, the build made the native kernel and it is the default', () => {
  // The build (scripts/native.mjs) falls back to WebAssembly without failing: this is where a lost native kernel shows.
  // As an entry point selects from its configuration (SML_STATS_NATIVE=0: native false).
  expect(selectKernels({ native: process.env.SML_STATS_NATIVE !== '0' }).gram.name).toBe(kernels[0]);
});
