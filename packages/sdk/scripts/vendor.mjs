// Bundles into dist/vendor/<package>/ the compiled modules of the workspace packages the SDK
// imports (@sml/core: signing, DSInfo encryption, guessType, the CSV parser) and
// points the SDK's dist at them, so that the published package has no dependency a consumer
// could not install (packages/sdk/README.md "Decisions"). Only the modules that define a name
// the SDK uses are copied, with the relative modules they load; one that loads anything else
// (zod, pino, @sml/proto …) stops the build: the SDK must not import it. Run after `tsc -b`
// (npm run build); idempotent, since tsc leaves an unchanged output as the last run left it.
// Every file is replaced by a rename and only when it changes: a process loading dist (the CLI
// of a system test) while a test packs the SDK never reads half a file.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const vendor = join(dist, 'vendor');
const require = createRequire(join(root, 'package.json'));
/** The workspace packages the SDK bundles, by the folder name under dist/vendor. */
const BUNDLED = { core: '@sml/core' };

const specifier = (name) => `(?:@sml\\/${name}|\\./vendor/${name})`;
const sdkFiles = readdirSync(dist).filter((f) => f.endsWith('.js') || f.endsWith('.d.ts'));

/** Writes `text` to `path` unless it holds it already, by a rename. */
function writeIfChanged(path, text) {
  if (existsSync(path) && readFileSync(path, 'utf8') === text) return;
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

for (const [name, pkg] of Object.entries(BUNDLED)) {
  const pkgDist = dirname(require.resolve(pkg));
  const used = usedNames(name);
  if (used.size === 0) continue;
  const modules = new Set();
  for (const n of used) modules.add(definingModule(pkgDist, n, pkg));
  const into = join(vendor, name);
  const copied = copyClosure(pkgDist, [...modules], into, pkg);
  const entries = [...modules].sort();
  writeIfChanged(join(into, 'index.js'), `"use strict";\n// ${pkg}, the part the SDK uses (scripts/vendor.mjs).\nmodule.exports = Object.assign({}, ${entries.map((m) => `require("./${m}")`).join(', ')});\n`);
  writeIfChanged(join(into, 'index.d.ts'), entries.map((m) => `export * from './${m}';`).join('\n') + '\n');
  for (const file of sdkFiles) {
    const path = join(dist, file);
    const text = readFileSync(path, 'utf8');
    const rewritten = text.replace(new RegExp(`(["'])@sml/${name}\\1`, 'g'), `$1./vendor/${name}$1`);
    writeIfChanged(path, rewritten);
  }
  // What an earlier build vendored and this one does not.
  const keep = new Set(['index.js', 'index.d.ts', ...copied.flatMap((m) => [`${m}.js`, `${m}.d.ts`])]);
  for (const f of readdirSync(into, { recursive: true })) if (/\.(js|d\.ts)$/.test(f) && !keep.has(f.split('\\').join('/'))) rmSync(join(into, f));
  console.log(`vendor/${name}: ${copied.length} modules of ${pkg} (${[...used].sort().join(', ')})`);
}

/** The names the SDK's outputs take from one bundled package (require in .js, import/export in .d.ts). */
function usedNames(name) {
  const names = new Set();
  for (const file of sdkFiles) {
    const text = readFileSync(join(dist, file), 'utf8');
    for (const m of text.matchAll(new RegExp(`(\\w+) = require\\("${specifier(name)}"\\)`, 'g'))) {
      for (const use of text.matchAll(new RegExp(`\\b${m[1]}\\.(\\w+)`, 'g'))) names.add(use[1]);
    }
    for (const m of text.matchAll(new RegExp(`(?:import|export)\\s+(?:type\\s+)?\\{([^}]*)\\}\\s+from\\s+['"]${specifier(name)}['"]`, 'g'))) {
      for (const part of m[1].split(',')) {
        const n = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0];
        if (n) names.add(n);
      }
    }
  }
  return names;
}

/** The module (file name without extension) of a package's dist that declares `n`. */
function definingModule(pkgDist, n, pkg) {
  const declares = new RegExp(`^export (?:declare )?(?:abstract )?(?:function|class|const|let|interface|type|enum) ${n}\\b`, 'm');
  const found = readdirSync(pkgDist).filter((f) => f.endsWith('.d.ts') && f !== 'index.d.ts' && declares.test(readFileSync(join(pkgDist, f), 'utf8')));
  if (found.length !== 1) throw new Error(`vendor: ${n} of ${pkg} is declared in ${found.length} modules (${found.join(', ')})`);
  return found[0].replace(/\.d\.ts$/, '');
}

/** Copies the modules and every relative module they load (.js and .d.ts); anything else but node: builtins is an error. */
function copyClosure(pkgDist, start, into, pkg) {
  const done = new Set();
  const queue = [...start];
  while (queue.length > 0) {
    const mod = queue.pop();
    if (done.has(mod)) continue;
    done.add(mod);
    for (const ext of ['.js', '.d.ts']) {
      const from = join(pkgDist, `${mod}${ext}`);
      if (!existsSync(from)) throw new Error(`vendor: ${pkg} has no ${mod}${ext}`);
      const text = readFileSync(from, 'utf8');
      writeIfChanged(join(into, `${mod}${ext}`), text);
      for (const m of text.matchAll(/(?:require\(|from\s+|import\()["']([^"']+)["']/g)) {
        const spec = m[1];
        if (spec.startsWith('node:')) continue;
        if (!spec.startsWith('.')) throw new Error(`vendor: ${pkg}'s ${mod}${ext} loads ${spec}, which the SDK does not bundle: import that name from elsewhere`);
        queue.push(posix.join(posix.dirname(mod), spec));
      }
    }
  }
  return [...done];
}
