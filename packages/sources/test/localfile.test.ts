import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { nameToken } from '@sml/core';
import { browseLocal, csvBatches, csvOptionsOf, sourceOf, SourceError, type ByteSource, type CsvBatch } from '../src';

let root: string;
const ctx = () => ({ user: 'alice.b', filesRoot: root, timeoutMs: 1000, allowPrivate: false });
const home = () => join(root, nameToken('alice.b'));

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'sml-sources-'));
  mkdirSync(join(home(), 'sub'), { recursive: true });
  mkdirSync(join(root, 'bob'), { recursive: true });
  writeFileSync(join(root, 'bob', 'secret.csv'), 'a\n1\n');
  writeFileSync(join(home(), 'lf.csv'), 'a,b\n1,2\n3,4\n');
  writeFileSync(join(home(), 'crlf.csv'), '\ufeffa,b\r\n1,2\r\n3,4\r\n');
  writeFileSync(join(home(), 'cr.csv'), 'a;b\r1;"x;\ry"\r3;"say ""hi"""');
  writeFileSync(join(home(), 'sub', 'z.csv.gz'), gzipSync('a,b\n5,6\n'));
  writeFileSync(join(home(), 'open.csv'), 'a,b\n1,"2\n3,4\n');
  symlinkSync(join(root, 'bob', 'secret.csv'), join(home(), 'escape.csv'));
  symlinkSync(join(home(), 'lf.csv'), join(home(), 'inside.csv'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function read(path: string, info: Record<string, string> = {}, batchRows = 1000): Promise<CsvBatch[]> {
  const src = sourceOf('localfile', { path, ...info }, ctx()) as ByteSource;
  const out: CsvBatch[] = [];
  for await (const b of csvBatches(src.open(), { ...csvOptionsOf({ path, ...info }, path), batchRows })) out.push({ ...b, rows: [...b.rows], lines: [...b.lines] });
  return out;
}

describe('localfile + CSV', () => {
  it('reads LF, CRLF with a BOM, CR-only with quotes, and gzip', async () => {
    expect((await read('lf.csv'))[0]).toMatchObject({ header: ['a', 'b'], rows: [['1', '2'], ['3', '4']], lines: [2, 3] });
    expect((await read('crlf.csv'))[0]).toMatchObject({ header: ['a', 'b'], rows: [['1', '2'], ['3', '4']], lines: [2, 3] });
    expect((await read('cr.csv', { csv_entry_separator: ';' }))[0]).toMatchObject({ header: ['a', 'b'], rows: [['1', 'x;\ry'], ['3', 'say "hi"']], lines: [2, 4] });
    expect((await read('sub/z.csv.gz'))[0]).toMatchObject({ header: ['a', 'b'], rows: [['5', '6']] });
    expect((await read('inside.csv'))[0].rows).toHaveLength(2);
  });

  it('batches rows and counts bytes', async () => {
    const batches = await read('lf.csv', {}, 1);
    expect(batches.map((b) => b.rows.length).reduce((a, b) => a + b)).toBe(2);
    expect(batches.at(-1)!.bytesRead).toBe(12);
  });

  it('bounds a batch by its cost as well as its rows, and a record by its length', async () => {
    const long = ['a,b', ...Array.from({ length: 50 }, (_, i) => `${'x'.repeat(1000)},${i}`)].join('\n');
    const bytes = async function* () { yield Buffer.from(long); };
    const sizes: number[] = [];
    for await (const b of csvBatches(bytes(), { batchRows: 1000, maxBatchCost: 5000 })) sizes.push(b.rows.length);
    expect(sizes.reduce((a, b) => a + b)).toBe(50);
    // One chunk holds all 50 rows here; with chunks of one row each, batches stay at the cost bound.
    const chunked = async function* () { for (const line of long.split('\n')) yield Buffer.from(`${line}\n`); };
    const small: number[] = [];
    for await (const b of csvBatches(chunked(), { batchRows: 1000, maxBatchCost: 5000 })) small.push(b.rows.length);
    expect(Math.max(...small)).toBeLessThanOrEqual(5);
    await expect((async () => { for await (const b of csvBatches(bytes(), { maxRecordChars: 500 })) void b; })()).rejects.toThrow(/line 2: a record longer than 500 characters/);
  });

  it('reads the CR-only data set of the repository', async () => {
    const src = { kind: 'bytes' as const, describe: () => 'x', size: () => Promise.resolve(undefined), async *open() {
      const { createReadStream } = await import('node:fs');
      for await (const c of createReadStream(join(__dirname, '../../../data/activity_rtlm_no_lag.csv'))) yield c as Buffer;
    } };
    let rows = 0;
    let header: string[] = [];
    for await (const b of csvBatches(src.open())) {
      rows += b.rows.length;
      header = b.header;
      expect(b.rows.every((r) => r.length === header.length)).toBe(true);
    }
    expect(header).toEqual(['SensorLocation', 'Type', 'Place', 'Activity']);
    expect(rows).toBeGreaterThan(100);
  });

  it('names file and line of a malformed CSV', async () => {
    await expect(read('open.csv')).rejects.toThrow(/Malformed CSV in \[open.csv\]: line 2: a quoted field is not closed/);
  });

  it.each([['../x'], ['/etc/passwd'], ['sub/../../bob/secret.csv'], ['escape.csv']])('refuses %s', async (path) => {
    const err = await read(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect((err as SourceError).reason).toBe('invalid');
  });

  it('not found, unknown type, missing path', async () => {
    await expect(read('nope.csv')).rejects.toMatchObject({ reason: 'not-found' });
    expect(() => sourceOf('ftp', { path: 'x' }, ctx())).toThrow('data source type [ftp] is not available');
    expect(() => sourceOf('localfile', {}, ctx())).toThrow(/info.path is required/);
    expect(() => csvOptionsOf({ csv_entry_separator: ';;' }, 'x')).toThrow(/one character/);
  });

  it('browses the customer root only', async () => {
    expect(await browseLocal('', ctx())).toEqual({ ok: true, dirs: ['sub'], files: ['crlf.csv', 'cr.csv', 'inside.csv', 'lf.csv', 'open.csv'].sort(), path: '' });
    expect(await browseLocal('sub', ctx())).toEqual({ ok: true, dirs: [], files: ['z.csv.gz'], path: 'sub' });
    await expect(browseLocal('..', ctx())).rejects.toMatchObject({ reason: 'invalid' });
    expect(await browseLocal('', { user: 'nobody', filesRoot: root })).toEqual({ ok: true, dirs: [], files: [], path: '' });
  });
});
