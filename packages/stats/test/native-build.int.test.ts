/**
 * scripts/native.mjs, the build of the native kernels, falls back cleanly: without a working C
 * compiler it says so, exits 0 (the build goes on) and leaves no addon, so the WebAssembly and
 * JavaScript kernels serve; with one, it builds an addon that loads. Run on a copy of the
 * script and source in a temporary folder, so the package's own build/ is not touched.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const pkg = path.join(__dirname, '..');
let root: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'sml-native-'));
  cpSync(path.join(pkg, 'scripts/native.mjs'), path.join(root, 'scripts/native.mjs'));
  cpSync(path.join(pkg, 'native/kernels.c'), path.join(root, 'native/kernels.c'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const build = (env: Record<string, string>) => spawnSync(process.execPath, [path.join(root, 'scripts/native.mjs')], { env: { ...process.env, ...env }, encoding: 'utf8' });

test('without a working C compiler the build says so, succeeds, and leaves no addon', () => {
  const out = build({ CC: 'false' });
  expect(out.status).toBe(0);
  expect(out.stderr).toMatch(/native kernel not built \(false failed.*the WebAssembly kernel serves/);
  expect(existsSync(path.join(root, 'build/kernels.node'))).toBe(false);
});

test('SML_STATS_NATIVE=0 skips it', () => {
  const out = build({ SML_STATS_NATIVE: '0' });
  expect(out.status).toBe(0);
  expect(out.stderr).toMatch(/not built \(SML_STATS_NATIVE=0\)/);
  expect(existsSync(path.join(root, 'build/kernels.node'))).toBe(false);
});

test('with the machine\'s compiler it builds an addon that loads and exports the kernels', () => {
  if (spawnSync(process.env.CC ?? 'cc', ['--version']).status !== 0) return; // kernels.int.test.ts says whether this machine should have it
  const out = build({});
  expect(out.status).toBe(0);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const addon = require(path.join(root, 'build/kernels.node')) as Record<string, unknown>;
  expect(Object.keys(addon).sort()).toEqual(['binColumn', 'fromMantissas', 'learnAttributes', 'shiftColumns', 'strip', 'supported']);
});
