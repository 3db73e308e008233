import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './system';

/**
 * The path of a public sample data set committed under `data/` (provenance in
 * data/README.md). A missing file is an error, never a skipped test.
 */
export function dataFile(name: string): string {
  const path = join(repoRoot(), 'data', name);
  if (!existsSync(path)) throw new Error(`data file ${name} is missing from ${join(repoRoot(), 'data')} (see data/README.md)`);
  return path;
}
