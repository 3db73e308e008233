import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { nameToken } from '@sml/core';
import { sinkOf, SourceError, type SourceContext } from '../src';

// Writers of prediction outputs (sinks.ts): nothing is visible before commit, nothing is left
// after abort, and a localfile path never leads outside the customer's files root.

let root: string;
const ctx = (): SourceContext => ({ user: 'alice', filesRoot: root, timeoutMs: 1000, allowPrivate: false });
const home = () => join(root, nameToken('alice'));

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sml-sinks-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('localfile sink', () => {
  it('writes CSV (quoting fields that need it) to a temporary file renamed into place at commit', async () => {
    const sink = sinkOf('localfile', { path: 'a/b/out.csv' }, ctx());
    await sink.begin(['x', 'note'], [true, false]);
    await sink.write([['1', 'plain'], ['2', 'a,b "c"']]);
    expect(existsSync(join(home(), 'a/b/out.csv'))).toBe(false);
    expect(readdirSync(join(home(), 'a/b'))).toHaveLength(1);
    const report = await sink.commit();
    const text = 'x,note\n1,plain\n2,"a,b ""c"""\n';
    expect(readFileSync(join(home(), 'a/b/out.csv'), 'utf8')).toBe(text);
    expect(report).toEqual({ rowsWritten: 2, bytesWritten: Buffer.byteLength(text) });
    expect(readdirSync(join(home(), 'a/b'))).toEqual(['out.csv']);
  });

  it('abort leaves neither the file nor the temporary file', async () => {
    const sink = sinkOf('localfile', { path: 'out.csv' }, ctx());
    await sink.begin(['x'], [true]);
    await sink.write([['1']]);
    await sink.abort();
    expect(readdirSync(home())).toEqual([]);
  });

  it('gzips a .gz path (one member per batch, read back as one stream)', async () => {
    const sink = sinkOf('localfile', { path: 'out.csv.gz', csv_entry_separator: ';' }, ctx());
    await sink.begin(['x', 'y'], [true, true]);
    await sink.write([['1', '2']]);
    await sink.write([['3', '4']]);
    await sink.commit();
    expect(gunzipSync(readFileSync(join(home(), 'out.csv.gz'))).toString('utf8')).toBe('x;y\n1;2\n3;4\n');
  });

  it('refuses paths that leave the customer\'s root, by their text or through a symlink', async () => {
    expect(() => sinkOf('localfile', { path: '../bob/out.csv' }, ctx())).toThrow(/must not contain '\.\.'/);
    expect(() => sinkOf('localfile', { path: '/etc/out.csv' }, ctx())).toThrow(/must be relative/);
    const outside = join(root, 'outside');
    mkdirSync(outside);
    mkdirSync(home());
    symlinkSync(outside, join(home(), 'link'));
    const sink = sinkOf('localfile', { path: 'link/deeper/out.csv' }, ctx());
    await expect(sink.begin(['x'], [true])).rejects.toThrow(/resolves outside the customer's files root/);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('redshift sink', () => {
  it('refuses a query as an output and a private address without SML_SOURCES_ALLOW_PRIVATE', async () => {
    const info = { rsurl: 'postgresql://127.0.0.1:1/db', rsuser: 'u', rspasswd: 'p' };
    expect(() => sinkOf('redshift', { ...info, path: 'SELECT 1' }, ctx())).toThrow(/an output must name a table/);
    const sink = sinkOf('redshift', { ...info, path: 'public.t' }, ctx());
    const err = await sink.begin(['x'], [true]).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect((err as SourceError).reason).toBe('denied');
    await sink.abort();
  });

  it('http cannot be written (s3 can: s3.int.test.ts)', () => {
    expect(() => sinkOf('http', { path: 'https://example.org/x.csv' }, ctx())).toThrow(/cannot be written \(outputs: localfile, s3, redshift\)/);
  });
});
