// Compiles proto/sml/**/*.proto to generated/index.js (static CommonJS module) + index.d.ts.
// Field names are kept as written (--keep-case) because they are the REST JSON names.
// Skips the work when no .proto is newer than the generated module.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'generated');
const protos = readdirSync(join(root, 'sml/v1')).filter((f) => f.endsWith('.proto')).sort().map((f) => `sml/v1/${f}`);
const js = join(out, 'index.js');
const dts = join(out, 'index.d.ts');
const descriptor = join(out, 'descriptor.json');
const newest = Math.max(...protos.map((p) => statSync(join(root, p)).mtimeMs), statSync(fileURLToPath(import.meta.url)).mtimeMs);
if (existsSync(js) && existsSync(dts) && existsSync(descriptor) && statSync(dts).mtimeMs >= newest && statSync(descriptor).mtimeMs >= newest && !process.argv.includes('--force')) process.exit(0);

mkdirSync(out, { recursive: true });
const require = createRequire(import.meta.url);
const cli = dirname(require.resolve('protobufjs-cli/package.json'));
const node = process.execPath;
execFileSync(node, [join(cli, 'bin/pbjs'), '-t', 'static-module', '-w', 'commonjs', '--keep-case', '--force-number',
  '--no-verify', '--no-delimited', '--no-service', '-p', '.', '-o', js, ...protos], { cwd: root, stdio: 'inherit' });
// The same schemas as a JSON descriptor: reflection (which fields are maps, which messages
// wrap a single `entries` field) for code that walks replies generically (the gateway).
execFileSync(node, [join(cli, 'bin/pbjs'), '-t', 'json', '--keep-case', '-o', descriptor, ...protos], { cwd: root, stdio: 'inherit' });
execFileSync(node, [join(cli, 'bin/pbts'), '-o', dts, js], { cwd: root, stdio: 'inherit' });
