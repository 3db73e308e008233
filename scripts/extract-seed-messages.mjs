// Extracts every status + message API.md quotes (`400 'Invalid Date Format'`, placeholders
// as <name>) into services/gateway/test/fixtures/seed-messages.json, which pins the error
// catalogue (packages/core/src/errors.ts) to the contract's exact wording.
// Usage: node scripts/extract-seed-messages.mjs <path/to/API.md>   (SymetryML's REST reference)
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = process.argv[2];
if (source === undefined) {
  console.error('usage: node scripts/extract-seed-messages.mjs <path/to/API.md> (SymetryML\'s REST reference)');
  process.exit(2);
}
const text = readFileSync(source, 'utf8');
const seen = new Map();
for (const m of text.matchAll(/\b([1-5]\d\d) '([^']+)'/g)) seen.set(`${m[1]} ${m[2]}`, { status: Number(m[1]), message: m[2] });
const messages = [...seen.values()].sort((a, b) => a.status - b.status || a.message.localeCompare(b.message));
const out = join(root, 'services/gateway/test/fixtures/seed-messages.json');
writeFileSync(out, JSON.stringify({
  source: 'API.md',
  sha256: createHash('sha256').update(text).digest('hex'),
  generator: 'scripts/extract-seed-messages.mjs',
  messages,
}, null, 2) + '\n');
console.log(`${messages.length} messages → ${out}`);
