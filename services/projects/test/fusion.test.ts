import { SmlError } from '@sml/core';
import { Summary } from '@sml/stats';
import { CellError, cellEndpoint, checkCells, type FusionCell } from '../src/fusion/cells';
import { Fusion } from '../src/fusion/fusion';
import { FusionMerge, type CellAnswer, type CellFetcher } from '../src/fusion/merge';
import { SecretSeal } from '../src/fusion/seal';
import type { ProjectRegistry } from '../src/lifecycle/registry';
import type { sml } from '@sml/proto';

// fusion/merge.ts through an in-memory fetcher and a hand-moved clock.

const SK = 'VLmAm+WkpnA5zp2wXiSYkw==';
const cell = (pid: string, host = 'local'): FusionCell => ({ host, cid: 'c', sk: SK, pid });

function summaryOf(names: string[], types: string[], rows: number[][]): Summary {
  const s = new Summary({});
  s.prepare('learn', { frame: { attributeNames: names, attributeTypes: types, data: rows.map((r) => r.map(String)), errorHandling: 0 } }, {}).commit();
  return s;
}

/** Cells in memory: each a summary and a version, or an error; every fetch recorded with the version it carried. */
class FakeCells implements CellFetcher {
  readonly held = new Map<string, { summary: Summary; version: number } | Error>();
  readonly calls: Array<{ pid: string; ifVersion: string }> = [];
  gate?: Promise<void>;

  set(pid: string, summary: Summary): void {
    const before = this.held.get(pid);
    this.held.set(pid, { summary, version: before instanceof Error || !before ? 1 : before.version + 1 });
  }

  async fetch(c: FusionCell, ifVersion: string, signal: AbortSignal): Promise<CellAnswer> {
    this.calls.push({ pid: c.pid, ifVersion });
    if (this.gate) await this.gate;
    if (c.pid === 'silent') {
      await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    }
    const h = this.held.get(c.pid);
    if (!h) throw new CellError('NOT_FOUND', `no project ${c.pid}`);
    if (h instanceof Error) throw h;
    if (ifVersion === String(h.version)) return { unchanged: true };
    return { summary: h.summary.serialize(), version: String(h.version) };
  }
}

/** Every numeric entry of `expected` within 1e-12 of `actual`'s. */
function expectCloseEntries(actual: object, expected: object): void {
  const got = new Map(Object.entries(actual));
  for (const [k, v] of Object.entries(expected)) if (typeof v === 'number') expect(got.get(k)).toBeCloseTo(v, 12);
}

const rowsA = [[1, 2, 1], [2, 3, 0], [3, 5, 1]];
const rowsB = [[4, 1, 0], [5, 8, 1]];
const names = ['x', 'y', 'b'];
const types = ['C', 'C', 'B'];

describe('FusionMerge', () => {
  let now = 0;
  let cells: FakeCells;
  const merge = (list: FusionCell[], minRefreshMs = 1000, cellTimeoutMs = 1000) =>
    new FusionMerge(list, { fetcher: cells, minRefreshMs, cellTimeoutMs, checks: { options: {} }, now: () => now });

  beforeEach(() => {
    now = 0;
    cells = new FakeCells();
    cells.set('a', summaryOf(names, types, rowsA));
    cells.set('b', summaryOf(names, types, rowsB));
  });

  it('the merge of two cells equals one summary of all their rows', async () => {
    const view = await merge([cell('a'), cell('b')]).read('fail');
    const pooled = summaryOf(names, types, [...rowsA, ...rowsB]);
    expect(view.summary.rowCount).toBe(5);
    expect(view.summary.attributeNames).toEqual(names);
    for (let i = 0; i < 3; i++) {
      expectCloseEntries(view.summary.moments(i), pooled.moments(i));
      for (let j = i; j < 3; j++) expectCloseEntries(view.summary.comoments(i, j), pooled.comoments(i, j));
    }
  });

  it('merges by attribute name: the union of the cells\' attributes', async () => {
    cells.set('b', summaryOf(['y', 'z'], ['C', 'C'], [[1, 2]]));
    const view = await merge([cell('a'), cell('b')]).read('fail');
    expect(view.summary.attributeNames).toEqual(['x', 'y', 'b', 'z']);
    expect(view.summary.rowCount).toBe(4);
  });

  it('refreshes at most once per window, and concurrent reads share one refresh', async () => {
    const m = merge([cell('a'), cell('b')]);
    let open!: () => void;
    cells.gate = new Promise((r) => { open = r; });
    const reads = [m.read('fail'), m.read('fail'), m.read('fail')];
    open();
    const views = await Promise.all(reads);
    expect(cells.calls.map((c) => c.pid)).toEqual(['a', 'b']);
    expect(new Set(views.map((v) => v.summary)).size).toBe(1);
    now = 999;
    await m.read('fail');
    expect(cells.calls).toHaveLength(2);
    now = 1000;
    await m.read('fail');
    expect(cells.calls).toHaveLength(4);
  });

  it('asks each cell with the version it holds: an unchanged cell sends nothing and the merge is kept', async () => {
    const m = merge([cell('a'), cell('b')]);
    const first = await m.read('fail');
    now = 5000;
    const second = await m.read('fail');
    expect(cells.calls.slice(2)).toEqual([{ pid: 'a', ifVersion: '1' }, { pid: 'b', ifVersion: '1' }]);
    expect(second.summary).toBe(first.summary);
    cells.set('a', summaryOf(names, types, [...rowsA, [9, 9, 1]]));
    now = 10_000;
    const third = await m.read('fail');
    expect(third.summary).not.toBe(first.summary);
    expect(third.summary.rowCount).toBe(6);
  });

  it('fail mode: a failed cell answers 503 naming every failed cell and why', async () => {
    cells.held.set('b', new CellError('UNREACHABLE', 'connect ECONNREFUSED'));
    const m = merge([cell('a'), cell('b'), cell('gone')]);
    const err = await m.read('fail').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SmlError);
    expect((err as SmlError).status).toBe(503);
    expect((err as SmlError).message).toBe('Fusion cell [local/c/b] failed: connect ECONNREFUSED; [local/c/gone] failed: no project gone');
    expect((await m.probe()).map((r) => r.status)).toEqual(['OK', 'UNREACHABLE', 'NOT_FOUND']);
  });

  it('stale mode: a failed cell\'s last good summary is used and named; a never-fetched cell fails anyway', async () => {
    const m = merge([cell('a'), cell('b')]);
    await m.read('stale');
    cells.held.set('b', new CellError('UNAUTHORIZED', '401 Invalid Signature'));
    now = 5000;
    const view = await m.read('stale');
    expect(view.summary.rowCount).toBe(5);
    expect(view.stale).toEqual(['local/c/b']);
    expect(view.errors).toEqual(['local/c/b: 401 Invalid Signature']);
    const fresh = merge([cell('a'), cell('b')]);
    await expect(fresh.read('stale')).rejects.toThrow('Fusion cell [local/c/b] failed: 401 Invalid Signature');
  });

  it('a cell whose attribute has another type in an earlier cell is left out as SCHEMA_CONFLICT', async () => {
    cells.set('b', summaryOf(['b'], ['C'], [[0.5]]));
    const m = merge([cell('a'), cell('b')]);
    await expect(m.read('fail')).rejects.toThrow(/Fusion cell \[local\/c\/b\] failed: .*already learned as B/);
    const [, b] = await m.probe();
    expect(b.status).toBe('SCHEMA_CONFLICT');
  });

  it('a cell silent past the cell timeout is UNREACHABLE, naming the timeout', async () => {
    const m = merge([cell('a'), cell('silent')], 1000, 50);
    cells.set('silent', summaryOf(names, types, rowsB));
    await expect(m.read('fail')).rejects.toThrow('Fusion cell [local/c/silent] failed: no answer within 50 ms (SML_FUSION_CELL_TIMEOUT_MS)');
  });

  it('probe fetches now, whatever the window, and reports rows and the last good fetch', async () => {
    const m = merge([cell('a'), cell('b')]);
    await m.read('fail');
    now = 10;
    const reports = await m.probe((c) => c.pid === 'b');
    expect(cells.calls).toHaveLength(4);
    expect(reports).toEqual([{ host: 'local', cid: 'c', pid: 'b', status: 'OK', rows: 2, lastFetch: 10, error: '' }]);
  });
});

describe('fusion cell lists', () => {
  it('take local and http(s) base URLs, with or without the REST prefix', () => {
    expect(cellEndpoint('http://10.0.0.1:8080')).toEqual({ url: 'http://10.0.0.1:8080', basePath: '/symetry/rest' });
    expect(cellEndpoint('https://sml.example.org/symetry/rest/')).toEqual({ url: 'https://sml.example.org', basePath: '/symetry/rest' });
    expect(cellEndpoint('ftp://x')).toBeNull();
    expect(cellEndpoint('http://u:p@x')).toBeNull();
    expect(checkCells([{ host: 'local', cid: 'c', sk: SK, pid: 'p' }, { host: 'http://h:1/', cid: 'c', sk: SK, pid: 'p' }]).map((c) => c.host)).toEqual(['local', 'http://h:1']);
  });

  it.each([
    ['no cell', [], 'a fusion project needs at least one cell'],
    ['a cell twice', [cell('p'), cell('p')], 'cell [local/c/p] is listed twice'],
    ['a host that is no http(s) URL', [{ ...cell('p'), host: 'nats://x:4222' }], 'cell 1: host [nats://x:4222] is neither "local" nor an http(s) base URL'],
    ['an sk that is no secret', [{ ...cell('p'), sk: 'short' }], 'cell 1: sk is not a customer secret (base64 of 16 bytes)'],
  ])('refuse %s', (_label, list, reason) => {
    expect(() => checkCells(list)).toThrow(`Invalid fusion cell list: ${reason}`);
  });
});

describe('Fusion.create', () => {
  const created: sml.v1.IProjectMeta[] = [];
  const fusion = (allowPrivate: boolean) => new Fusion({
    registry: { create: (meta: sml.v1.IProjectMeta) => created.push(meta) } as unknown as ProjectRegistry,
    store: { putMeta: async () => undefined } as never, models: { deleteAll: async () => undefined } as never,
    seal: SecretSeal.ofKey(new Uint8Array(32).fill(7)), fetcher: new FakeCells(),
    limits: { maxAttributes: 10, state: {}, bounds: {} }, minRefreshMs: 0, cellTimeoutMs: 100, allowPrivate,
  });

  it('refuses a cell on a loopback or private address unless SML_SOURCES_ALLOW_PRIVATE', async () => {
    const cells = [{ host: 'http://127.0.0.1:8080', cid: 'c', sk: SK, pid: 'p' }];
    await expect(fusion(false).create('u', { pid: 'f', cells })).rejects.toThrow('Invalid fusion cell list: fusion cell [http://127.0.0.1:8080/c/p]: address 127.0.0.1 is loopback, not a public address; set SML_SOURCES_ALLOW_PRIVATE=true to allow');
    await expect(fusion(false).create('u', { pid: 'f', cells: [{ ...cells[0], host: 'http://10.1.2.3' }] })).rejects.toThrow('address 10.1.2.3 is private');
    await expect(fusion(true).create('u', { pid: 'f', cells })).resolves.toBe('f');
  });

  it('keeps each cell\'s sk sealed in the project\'s metadata, never in clear', async () => {
    created.length = 0;
    await fusion(true).create('u', { pid: 'f', cells: [cell('p')], onCellError: 'stale' });
    const meta = created[0];
    expect(meta.type).toBe('fusion');
    expect(meta.fusion?.onCellError).toBe('stale');
    const sealed = meta.fusion!.cells![0].sk!;
    expect(JSON.stringify(meta)).not.toContain(SK);
    expect(SecretSeal.ofKey(new Uint8Array(32).fill(7)).unseal(sealed)).toBe(SK);
    expect(() => SecretSeal.ofKey(new Uint8Array(32).fill(8)).unseal(sealed)).toThrow();
  });
});
