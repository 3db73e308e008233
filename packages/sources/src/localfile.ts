import { createReadStream } from 'node:fs';
import { lstat, mkdir, readdir, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { nameToken } from '@sml/core';
import { SourceError, type ByteSource, type SourceContext, type SourceInfo } from './types';

/** The customer's own files root: `<SML_FILES_ROOT>/<customer token>/`. */
export function customerRoot(ctx: Pick<SourceContext, 'user' | 'filesRoot'>): string {
  return resolve(ctx.filesRoot, nameToken(ctx.user));
}

function inside(root: string, full: string): boolean {
  const rel = relative(root, full);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * A path of the customer's files, checked: relative, no `..` segment, and once symlinks are
 * resolved still under the customer's root (so never another customer's files). `''` or `.`
 * is the root itself (dsbrowse).
 */
export async function resolveLocalPath(path: string, ctx: Pick<SourceContext, 'user' | 'filesRoot'>): Promise<{ root: string; full: string }> {
  if (path.includes('\0')) throw new SourceError('invalid', 'info.path must not contain NUL characters');
  if (isAbsolute(path) || path.startsWith('/') || path.startsWith('\\')) throw new SourceError('invalid', `info.path [${path.slice(0, 200)}] must be relative to the customer's files root`);
  if (path.split(/[\\/]/).includes('..')) throw new SourceError('invalid', `info.path [${path.slice(0, 200)}] must not contain '..'`);
  const root = customerRoot(ctx);
  const full = resolve(root, path);
  if (!inside(root, full)) throw new SourceError('invalid', `info.path [${path.slice(0, 200)}] is outside the customer's files root`);
  let realRoot: string;
  let real: string;
  try {
    realRoot = await realpath(root);
    real = await realpath(full);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') throw new SourceError('not-found', `File [${path.slice(0, 200)}] not found`, { cause: err });
    throw new SourceError('denied', `File [${path.slice(0, 200)}] cannot be read`, { cause: err });
  }
  if (!inside(realRoot, real)) throw new SourceError('invalid', `info.path [${path.slice(0, 200)}] resolves outside the customer's files root`);
  return { root: realRoot, full: real };
}

/**
 * Where a file of the customer's may be written (a prediction output): the same text checks
 * as a read, the customer's root and missing parent directories created, and the parent
 * checked once symlinks are resolved (a directory is created only under one that resolves
 * inside the root), so nothing is ever written outside `<filesRoot>/<customer token>/`. An
 * existing symlink at the path itself is replaced by the file, never written through.
 */
export async function resolveLocalOutputPath(path: string, ctx: Pick<SourceContext, 'user' | 'filesRoot'>): Promise<{ root: string; dir: string; full: string }> {
  checkLocalPathText(path);
  const root = customerRoot(ctx);
  const full = resolve(root, path);
  if (!inside(root, full) || full === root) throw new SourceError('invalid', `info.path [${path.slice(0, 200)}] is outside the customer's files root`);
  await mkdir(root, { recursive: true });
  const realRoot = await realpath(root);
  // The deepest directory that exists must already resolve inside the root.
  let existing = dirname(full);
  for (;;) {
    const st = await lstat(existing).catch(() => undefined);
    if (st) break;
    existing = dirname(existing);
  }
  const realExisting = await realpath(existing);
  if (!inside(realRoot, realExisting)) throw new SourceError('invalid', `info.path [${path.slice(0, 200)}] resolves outside the customer's files root`);
  await mkdir(dirname(full), { recursive: true }).catch((err: NodeJS.ErrnoException) => {
    throw new SourceError(err.code === 'EEXIST' || err.code === 'ENOTDIR' ? 'invalid' : 'denied', `The directory of [${path.slice(0, 200)}] cannot be created`, { cause: err });
  });
  const dir = await realpath(dirname(full));
  if (!inside(realRoot, dir)) throw new SourceError('invalid', `info.path [${path.slice(0, 200)}] resolves outside the customer's files root`);
  const target = join(dir, relative(dirname(full), full));
  const st = await lstat(target).catch(() => undefined);
  if (st?.isDirectory()) throw new SourceError('invalid', `info.path [${path.slice(0, 200)}] is a directory`);
  return { root: realRoot, dir, full: target };
}

/** `localfile`: CSV (or `.csv.gz`) under the customer's files root (API.md §5). */
export function localFileSource(info: SourceInfo, ctx: SourceContext): ByteSource {
  const path = info.path;
  // Checked now for what the text alone says; symlinks are checked when it is read.
  checkLocalPathText(path);
  const checked = () => resolveLocalPath(path, ctx);
  return {
    kind: 'bytes',
    describe: () => path,
    async size() {
      const { full } = await checked();
      const st = await stat(full);
      if (!st.isFile()) throw new SourceError('invalid', `info.path [${path.slice(0, 200)}] is not a file`);
      return st.size;
    },
    async *open() {
      const { full } = await checked();
      const st = await stat(full);
      if (!st.isFile()) throw new SourceError('invalid', `info.path [${path.slice(0, 200)}] is not a file`);
      const stream = createReadStream(full, { highWaterMark: 256 * 1024, signal: ctx.signal });
      for await (const chunk of stream) yield chunk as Buffer;
    },
  };
}

/** Checks a localfile path's text (no I/O): what `dss/create` refuses at once. */
export function checkLocalPathText(path: string | undefined): void {
  if (typeof path !== 'string' || path.trim() === '') throw new SourceError('invalid', 'info.path is required for a localfile data source');
  if (path.includes('\0')) throw new SourceError('invalid', 'info.path must not contain NUL characters');
  if (isAbsolute(path) || path.startsWith('\\')) throw new SourceError('invalid', `info.path [${path.slice(0, 200)}] must be relative to the customer's files root`);
  if (path.split(/[\\/]/).includes('..')) throw new SourceError('invalid', `info.path [${path.slice(0, 200)}] must not contain '..'`);
}

export interface DirectoryListing {
  ok: boolean;
  dirs: string[];
  files: string[];
  path: string;
}

/** dsbrowse of a localfile path: the directories and files right under it (names only, sorted; at most 10 000 entries). */
export async function browseLocal(path: string, ctx: Pick<SourceContext, 'user' | 'filesRoot'>): Promise<DirectoryListing> {
  const rel = path === '' || path === '.' || path === '/' ? '' : path;
  if (rel !== '') checkLocalPathText(rel);
  let full: string;
  let root: string;
  try {
    ({ full, root } = await resolveLocalPath(rel, ctx));
  } catch (err) {
    // The customer's root not existing yet is an empty listing, not an error.
    if (rel === '' && err instanceof SourceError && err.reason === 'not-found') return { ok: true, dirs: [], files: [], path: '' };
    throw err;
  }
  const entries = await readdir(full, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOTDIR') throw new SourceError('invalid', `[${path.slice(0, 200)}] is not a directory`);
    throw new SourceError('denied', `[${path.slice(0, 200)}] cannot be listed`);
  });
  const dirs: string[] = [];
  const files: string[] = [];
  for (const e of entries.slice(0, 10_000)) {
    if (e.isDirectory()) dirs.push(e.name);
    else if (e.isFile()) files.push(e.name);
    else if (e.isSymbolicLink()) {
      // A link is listed only if it stays inside the root.
      const target = await realpath(join(full, e.name)).catch(() => undefined);
      if (!target || !inside(root, target)) continue;
      const st = await stat(target).catch(() => undefined);
      if (st?.isDirectory()) dirs.push(e.name);
      else if (st?.isFile()) files.push(e.name);
    }
  }
  return { ok: true, dirs: dirs.sort(), files: files.sort(), path: relative(root, full).split(sep).join('/') };
}
