// Benchmarks' client processes run with the services' glibc malloc settings
// (packages/core/src/malloc.ts): without them, this client faulted in fresh pages for every
// multi-MB message it built or masked, and being on the same 2 cores, took them from the services.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const { MALLOC_ENV } = createRequire(import.meta.url)('../../packages/core/dist/index.js');

/** Runs this script again with MALLOC_ENV when it was started without it (glibc reads it at start), and exits with its status. */
export function withServiceMalloc() {
  if (Object.keys(MALLOC_ENV).every((k) => process.env[k] !== undefined)) return;
  const r = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env: { ...MALLOC_ENV, ...process.env } });
  process.exit(r.status ?? 1);
}
