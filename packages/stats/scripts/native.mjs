// Builds native/kernels.c into build/kernels.node (part of `npm run build`): kernels with AVX2
// and FMA (the cross products, decimal columns), which kernels/native.ts loads where the CPU has
// them, in preference to the WebAssembly and JavaScript ways. Needs only a C compiler and Node's headers (node_api.h), which a fresh machine of
// this project's kind has; without them it says so and the WebAssembly kernel serves (a clean
// fallback, never a failed build). SML_STATS_NATIVE=0 skips it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'native/kernels.c');
const target = join(root, 'build/kernels.node');

const skip = (why) => {
  console.warn(`@sml/stats: native kernel not built (${why}): the WebAssembly kernel serves`);
  process.exit(0);
};
if (process.env.SML_STATS_NATIVE === '0') skip('SML_STATS_NATIVE=0');
if (existsSync(target) && statSync(target).mtimeMs >= statSync(source).mtimeMs) process.exit(0);

// Node's headers: where npm builds addons against (npm_config_nodedir, /usr here), or beside the running node.
const headerDirs = [process.env.npm_config_nodedir, dirname(dirname(process.execPath)), '/usr', '/usr/local']
  .filter(Boolean)
  .map((d) => join(d, 'include/node'));
const headers = headerDirs.find((d) => existsSync(join(d, 'node_api.h')));
if (headers === undefined) skip(`no node_api.h under ${headerDirs.join(', ')}`);
const cc = process.env.CC ?? 'cc';
mkdirSync(dirname(target), { recursive: true });
try {
  // Written beside the target and renamed, so a process loading it never sees half a file.
  execFileSync(cc, ['-O2', '-std=c11', '-Wall', '-Werror', '-shared', '-fPIC', '-I', headers, source, '-o', `${target}.tmp`], { stdio: ['ignore', 'ignore', 'pipe'] });
  renameSync(`${target}.tmp`, target);
} catch (err) {
  skip(`${cc} failed: ${String(err.stderr ?? err.message).trim().split('\n')[0]}`);
}
