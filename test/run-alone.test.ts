/**
 * scripts/run-alone.js: the lock that lets a timing-sensitive system file run while no other
 * file does, with jest on two workers (scripts/jest-alone.js). Workers are simulated by calls
 * in this process over one temp directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS script of the repository, not a package
const { enter } = require('../scripts/run-alone.js') as { enter: (gate: string, o: { worker: string; alone: boolean; what?: string }) => Promise<() => void> };

let gate: string;
beforeEach(() => {
  gate = join(mkdtempSync(join(tmpdir(), 'sml-gate-')), 'gate');
});
afterEach(() => rmSync(join(gate, '..'), { recursive: true, force: true }));

/** Whether `p` settles within `ms`. */
const settles = (p: Promise<unknown>, ms = 400) => Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), ms))]);

test('files that need not run alone run together', async () => {
  const a = await enter(gate, { worker: '1', alone: false });
  expect(await settles(enter(gate, { worker: '2', alone: false }))).toBe(true);
  a();
});

test('an alone file waits for the running file; a file that comes later waits for the alone one', async () => {
  const a = await enter(gate, { worker: '1', alone: false });
  const alone = enter(gate, { worker: '2', alone: true });
  expect(await settles(alone)).toBe(false);
  const later = enter(gate, { worker: '3', alone: false });
  a();
  const releaseAlone = await alone;
  expect(await settles(later)).toBe(false);
  releaseAlone();
  expect(await settles(later)).toBe(true);
});

test('two alone files never run together', async () => {
  const first = await enter(gate, { worker: '1', alone: true });
  const second = enter(gate, { worker: '2', alone: true });
  expect(await settles(second)).toBe(false);
  first();
  expect(await settles(second)).toBe(true);
});
