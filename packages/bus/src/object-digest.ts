import { createHash } from 'node:crypto';

/** What nats.js's object store asks of a SHA-256 (js-sha256's streaming interface, the part it uses). */
interface Sha256 {
  update(data: Uint8Array): unknown;
  digest(): ArrayLike<number>;
}

/** The module nats.js 2.x computes object-store digests with; its `sha256.create` is replaced. */
const NATS_SHA256_MODULE = 'nats/lib/nats-base-client/js-sha256';

let installed: 'native' | 'javascript' | undefined;

/**
 * Makes nats.js compute the SHA-256 digests of object-store puts and gets with node:crypto
 * (OpenSSL) instead of its bundled JavaScript SHA-256. The JavaScript one costs ≈ 3 s of CPU
 * per 200 MB snapshot on the thread that serves the project (a profile of bench/explore.mjs:
 * js-sha256 was the projects service's largest cost, and a snapshot in progress delayed the
 * builds around it). Same algorithm on the same bytes, so the stored digests are the ones any
 * NATS client writes and checks. The library's module is patched in place: installed only when
 * it is where nats.js 2.x keeps it and both give the same digest of a test message; otherwise
 * nats.js keeps its own (slower, still correct). Returns which one is in use.
 */
export function useNativeObjectDigest(): 'native' | 'javascript' {
  if (installed) return installed;
  installed = 'javascript';
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a module of nats.js without typings
    const mod = require(NATS_SHA256_MODULE) as { sha256?: { create?: () => Sha256 } };
    const original = mod.sha256?.create;
    if (typeof original !== 'function') return installed;
    const sample = new TextEncoder().encode('sml object digest check');
    const theirs = original();
    theirs.update(sample);
    const expected = Array.from(theirs.digest());
    const native = (): Sha256 => createHash('sha256');
    const mine = native();
    mine.update(sample);
    if (Array.from(mine.digest()).join() !== expected.join()) return installed;
    mod.sha256!.create = native;
    installed = 'native';
  } catch {
    // Another nats.js layout: its own SHA-256 stays.
  }
  return installed;
}
