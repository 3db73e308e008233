import fc from 'fast-check';
import { FrameError, frameFromColumns, frameToColumns, parseFrameJson, readFrameColumns, Summary, type FrameColumnsData } from '@sml/stats';
import { parseFrame } from '../src/frame';
import { wasmDecimalRows } from '../src/kernels/decimals';
import { selectKernels } from '../src/kernels/select';

/** Selects the kernels with the WebAssembly rows reader or without it (`js`); returns whether it is in use. */
const useWasmDecimals = (wasm: boolean) => selectKernels({ kernel: wasm ? 'auto' : 'js' }).decimals.name === 'wasm';

// The fast JSON reader must read exactly what parseFrame(JSON.parse(text)) reads, or decline
// (null) so that the general path answers. Reference: the general path itself, on the same text.
const enc = new TextEncoder();

const numberText = fc.oneof(
  fc.integer({ min: -1e9, max: 1e9 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.double({ min: -1e6, max: 1e6, noNaN: true }).map((v) => v.toFixed(6)),
  fc.tuple(fc.integer({ min: -999, max: 999 }), fc.integer({ min: -30, max: 30 })).map(([m, e]) => `${m}e${e}`),
  fc.constantFrom('0', '-0', '+5', '.5', '-.5', '5.', '-5.', '007', '1E3', '12345678901234567890', '0.1234567890123456789', '123456789012345.6', '9007199254740991', '9007199254740993', '0.0000000000000000000001', '1.00000000000000000000001', '-', '999999999.999999999', '-999999999.5', '1234567890.5', '0.1234567891', '9007199.254740991', '9007199.254740993', '000000000.000000001'),
);
const missing = fc.constantFrom('', 'NA', 'na', 'NaN', 'null', '?', ' NA ', 'NULL');
const oddText = fc.constantFrom('abc', '0x10', 'Infinity', '1e', '--1', ' 12 ', '1 2', 'tab\there', 'é', 'quote"d', 'back\\slash', 'ctl\u0001', 'new\nline', '\ud800', 'x\udc00y');
/** Cells parseFrame refuses whatever the column: arrays and objects. */
const notText = fc.constantFrom<unknown>(['1'], [[['x']]], [], { a: '1' });
const cell = fc.oneof({ weight: 12, arbitrary: numberText }, { weight: 2, arbitrary: missing }, { weight: 2, arbitrary: oddText }, { weight: 1, arbitrary: notText });
const binaryCell = fc.oneof({ weight: 6, arbitrary: fc.constantFrom('0', '1', ' 1', '1.0', '0e0') }, { weight: 1, arbitrary: missing }, { weight: 1, arbitrary: fc.constantFrom('2', 'x') });
const categoryCell = fc.oneof({ weight: 6, arbitrary: fc.constantFrom('Red', ' blue ', 'GREEN', 'red') }, { weight: 2, arbitrary: missing }, { weight: 2, arbitrary: fc.constantFrom('ünï', 'a\\"b', '\ud800', 'ctl\u0001') }, { weight: 1, arbitrary: notText });
// Mostly valid codes; now and then one parseFrame refuses (`" C"` is not `C`).
const typeCode = fc.oneof({ weight: 20, arbitrary: fc.constantFrom('C', 'B', 'T', 'X', 'S') }, { weight: 1, arbitrary: fc.constantFrom(' C', 'T ', 'c', 'L') });

const frameArb = fc.integer({ min: 1, max: 4 }).chain((width) =>
  fc.record({
    types: fc.array(typeCode, { minLength: width, maxLength: width }),
    rows: fc.integer({ min: 1, max: 12 }),
    errorHandling: fc.oneof({ weight: 12, arbitrary: fc.constantFrom<unknown>(0, 0, 0, 1) }, { weight: 1, arbitrary: fc.constantFrom<unknown>(2, -1, '1', '0', null, 0.5, [1]) }),
    raw: fc.boolean(),
    seed: fc.integer(),
  }).chain(({ types, rows, errorHandling, raw }) =>
    fc.array(fc.tuple(...types.map((t) => (t === 'B' ? binaryCell : t === 'T' ? categoryCell : cell))), { minLength: rows, maxLength: rows })
      .map((data) => ({ attributeNames: types.map((_, i) => `a${i}`), attributeTypes: types, data, errorHandling, raw }))));

/** JSON text of a frame; with `raw`, numeric-looking cells are written as JSON numbers. */
function text(f: { attributeNames: string[]; attributeTypes: string[]; data: unknown[][]; errorHandling: unknown; raw: boolean }): string {
  const data = f.raw ? f.data.map((r) => r.map((c) => (typeof c === 'string' && /^-?\d+(\.\d+)?$/.test(c) && Number.isFinite(Number(c)) ? Number(c) : c))) : f.data;
  return JSON.stringify({ attributeNames: f.attributeNames, attributeTypes: f.attributeTypes, data, errorHandling: f.errorHandling });
}

function outcome<T>(fn: () => T): { ok: T } | { error: string } {
  try {
    return { ok: fn() };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

describe('fast JSON frame reader', () => {
  afterEach(() => selectKernels());

  it('reads exactly what JSON.parse + parseFrame read, or declines', () => {
    let fast = 0;
    fc.assert(fc.property(frameArb, (f) => {
      const json = text(f);
      const got = outcome(() => parseFrameJson(enc.encode(json)));
      const want = outcome(() => parseFrame(JSON.parse(json)));
      if ('error' in got) throw new Error(`fast reader threw ${got.error}`);
      if (got.ok === null) return;
      fast++;
      expect('ok' in want).toBe(true);
      const w = (want as { ok: ReturnType<typeof parseFrame> }).ok;
      const g = got.ok;
      expect(g.names).toEqual(w.names);
      expect(g.types).toEqual(w.types);
      expect(g.rows.length).toBe(w.rows.length);
      expect(g.report).toEqual(w.report);
      expect(g.categorical).toEqual(w.categorical);
      g.numeric.forEach((col, k) => {
        expect(col.kind).toBe(w.numeric[k].kind);
        // Object.is: the very same doubles (NaN for missing, signed zeros aside).
        Array.from(col.values).forEach((v, r) => expect(v === w.numeric[k].values[r] || (Number.isNaN(v) && Number.isNaN(w.numeric[k].values[r]))).toBe(true));
      });
    }), { numRuns: 400 });
    // The fast path must actually be taken for well-formed frames, or this test proves nothing.
    expect(fast).toBeGreaterThan(50);
  });

  it('bytes that are not JSON, not UTF-8 or not a frame: the fast reader declines or agrees; the general path answers FrameError or SyntaxError', () => {
    // A frame's text with one byte put in, anywhere: control characters are refused inside
    // strings (raw), bytes ≥ 0x80 there break UTF-8, elsewhere they break the JSON.
    const strict = new TextDecoder('utf-8', { fatal: true });
    const general = (bytes: Uint8Array) => outcome(() => parseFrame(JSON.parse(strict.decode(bytes))));
    let declined = 0;
    fc.assert(fc.property(frameArb, fc.nat(), fc.oneof(fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0x80, max: 0xff })), (f, at, byte) => {
      const clean = enc.encode(text(f));
      const where = at % (clean.length + 1);
      const bytes = new Uint8Array(clean.length + 1);
      bytes.set(clean.subarray(0, where));
      bytes[where] = byte;
      bytes.set(clean.subarray(where), where + 1);
      const got = outcome(() => parseFrameJson(bytes));
      if ('error' in got) throw new Error(`fast reader threw ${got.error}`);
      try {
        new Summary().learnJson(bytes);
      } catch (err) {
        if (!(err instanceof FrameError || err instanceof SyntaxError)) throw err;
      }
      if (got.ok === null) {
        declined++;
        return;
      }
      const w = general(bytes);
      expect('ok' in w).toBe(true);
      const g = got.ok;
      const ww = (w as { ok: ReturnType<typeof parseFrame> }).ok;
      expect(g.names).toEqual(ww.names);
      expect(g.rows.length).toBe(ww.rows.length);
      expect(g.categorical).toEqual(ww.categorical);
    }), { numRuns: 400 });
    expect(declined).toBeGreaterThan(100);
  });

  it('learnJson builds the same summary as learn, and forgetJson undoes it', () => {
    fc.assert(fc.property(frameArb, (f) => {
      const json = text(f);
      const a = new Summary({ histogram: 'streaming' });
      const b = new Summary({ histogram: 'streaming' });
      const ra = outcome(() => a.learn(JSON.parse(json)));
      const rb = outcome(() => b.learnJson(enc.encode(json)));
      expect('error' in rb ? rb.error : 'ok').toBe('error' in ra ? ra.error : 'ok');
      if ('ok' in rb) {
        expect(rb.ok.report).toEqual((ra as { ok: unknown }).ok);
        expect(rb.ok.lenient).toBe(f.errorHandling === 1);
        expect(b.serialize()).toEqual(a.serialize());
        b.forgetJson(enc.encode(json));
        expect(b.rowCount).toBe(0);
      }
    }), { numRuns: 200 });
  });

  it('frame columns (what the gateway sends) learn exactly what the JSON learns, and forget it', () => {
    // The bytes travel: copy every byte field to an odd offset, as a decoded message may hold them.
    const travelled = (data: FrameColumnsData): FrameColumnsData => {
      // Node's Buffer too: protobufjs decodes bytes fields as Buffers that share a larger pool.
      const moved = (bytes: Uint8Array) => {
        const home = Buffer.alloc(bytes.length + 3);
        home.set(bytes, 3);
        return home.subarray(3);
      };
      return { ...data, numeric: data.numeric.map((c) => ({ ...c, values: moved(c.values) })), categorical: data.categorical.map((c) => ({ ...c, codes: moved(c.codes) })) };
    };
    let read = 0;
    fc.assert(fc.property(frameArb, (f) => {
      const json = enc.encode(text(f));
      const parsed = parseFrameJson(json);
      if (parsed === null) return;
      read++;
      const viaJson = new Summary({ histogram: 'streaming' });
      const viaColumns = new Summary({ histogram: 'streaming' });
      const a = outcome(() => viaJson.learnJson(json));
      const b = outcome(() => viaColumns.prepare('learn', { columns: frameFromColumns(travelled(frameToColumns(parsed))) }).commit());
      expect('error' in b ? b.error : 'ok').toBe('error' in a ? a.error : 'ok');
      expect(viaColumns.serialize()).toEqual(viaJson.serialize());
      if ('ok' in b) {
        viaColumns.prepare('forget', { columns: frameFromColumns(frameToColumns(parsed)) }).commit();
        expect(viaColumns.rowCount).toBe(0);
      }
    }), { numRuns: 300 });
    expect(read).toBeGreaterThan(30);
  });

  it.each([['WebAssembly', true], ['JavaScript', false]])('readFrameColumns (the gateway\'s reading, rows read by %s) writes the very bytes frameToColumns(parseFrameJson) writes, or declines with it', (_reader, wasm) => {
    expect(useWasmDecimals(wasm)).toBe(wasm);
    // Frames of C and B columns take the decimal reader; these cells move a column's scale up
    // (more decimals, trailing zeros that do not count), past an int32 (to float64 midway), to -0.
    const decimalCell = fc.oneof(
      { weight: 30, arbitrary: fc.tuple(fc.integer({ min: -99999, max: 99999 }), fc.integer({ min: 0, max: 4 })).map(([m, k]) => (m / 10 ** k).toFixed(k)) },
      { weight: 4, arbitrary: fc.tuple(fc.integer({ min: -999, max: 999 }), fc.integer({ min: 1, max: 3 })).map(([m, z]) => `${m}.${'0'.repeat(z)}`) },
      { weight: 1, arbitrary: fc.constantFrom('1.50', '-0.000', '0.0', '2147.483647', '-2147.483647', '2147.483648', '214748364.7', '0.000000001', '1.1000000', '99', '5.') },
    );
    const numericFrame = fc.integer({ min: 1, max: 3 }).chain((width) => fc.record({
      types: fc.array(fc.oneof({ weight: 5, arbitrary: fc.constant('C') }, { weight: 1, arbitrary: fc.constant('B') }), { minLength: width, maxLength: width }),
      rows: fc.integer({ min: 1, max: 40 }),
      raw: fc.boolean(),
    }).chain(({ types, rows, raw }) =>
      fc.array(fc.tuple(...types.map((t) => (t === 'B' ? binaryCell : fc.oneof({ weight: 40, arbitrary: decimalCell }, { weight: 1, arbitrary: numberText }, { weight: 2, arbitrary: missing })))), { minLength: rows, maxLength: rows })
        .map((data) => ({ attributeNames: types.map((_, i) => `a${i}`), attributeTypes: types, data, errorHandling: 0, raw }))));
    const bytesOf = (data: FrameColumnsData | null) => data && {
      ...data,
      numeric: data.numeric.map((c) => ({ ...c, values: Buffer.from(c.values.buffer, c.values.byteOffset, c.values.byteLength).toString('hex') })),
      categorical: data.categorical.map((c) => ({ ...c, codes: Buffer.from(c.codes.buffer, c.codes.byteOffset, c.codes.byteLength).toString('hex') })),
    };
    let decimals = 0;
    let float64 = 0;
    fc.assert(fc.property(fc.oneof(numericFrame, frameArb), (f) => {
      const json = enc.encode(text(f));
      const parsed = parseFrameJson(json);
      const got = readFrameColumns(json);
      expect(bytesOf(got)).toEqual(bytesOf(parsed && frameToColumns(parsed)));
      for (const c of got?.numeric ?? []) if (c.scale === undefined) float64++; else decimals++;
    }), { numRuns: 600 });
    // Both forms must actually occur, or this test proves little.
    expect(decimals).toBeGreaterThan(150);
    expect(float64).toBeGreaterThan(50);
    // Cases a column rarely gets by chance: only trailing zeros (scale 0), a scale raised after
    // the first rows, an int32 overflow after the first rows, -0 after the first rows.
    for (const cells of [['5.0', '-12.00', 'NA'], ['1', '2.5', '3.25'], ['1.5', '2147483.5', '21474836.47'], ['1.5', '-0.0']]) {
      const json = enc.encode(JSON.stringify({ attributeNames: ['x'], attributeTypes: ['C'], data: cells.map((c) => [c]) }));
      expect(bytesOf(readFrameColumns(json))).toEqual(bytesOf(frameToColumns(parseFrameJson(json)!)));
    }
    expect(readFrameColumns(enc.encode('{"attributeNames":["x"],"attributeTypes":["C"],"data":[["5.0"],["-12.00"]]}'))!.numeric[0].scale).toBe(0);
  });

  it('a frame that grows the WebAssembly memory past what is kept reads the same, and so does the next', () => {
    // 1.6 million rows (≈ 13 MB of JSON, ≈ 20 MB of module memory): the instance is dropped after the call.
    const rowsOf = (n: number) => enc.encode(`{"attributeNames":["x"],"attributeTypes":["C"],"data":[${Array.from({ length: n }, (_, r) => `["${(r % 1000) / 8}"]`).join(',')}]}`);
    for (const json of [rowsOf(1_600_000), rowsOf(1000)]) {
      const viaWasm = readFrameColumns(json)!;
      useWasmDecimals(false);
      const viaJs = readFrameColumns(json)!;
      selectKernels();
      expect(viaWasm.rowCount).toBe(viaJs.rowCount);
      expect(viaWasm.numeric[0].scale).toBe(3);
      expect(Buffer.from(viaWasm.numeric[0].values).equals(Buffer.from(viaJs.numeric[0].values))).toBe(true);
    }
  });

  it('the WebAssembly rows read the common frame and decline any other', () => {
    const rows = (data: string) => {
      const b = enc.encode(`[${data}]`);
      return wasmDecimalRows(b, 1, 2, 4);
    };
    const read = rows('["1.5","-20"],["","0.25"],["-0.001","7."]')!;
    expect(read).not.toBeNull();
    expect(read.rows).toBe(3);
    expect(Array.from(read.scales)).toEqual([3, 2]);
    expect(read.mantissas.map((m) => Array.from(m))).toEqual([[1500, -2147483648, -1], [-2000, 25, 700]]);
    expect(read.end).toBe(enc.encode('[["1.5","-20"],["","0.25"],["-0.001","7."]]').length);
    // Spacing, missing tokens, numbers, exponents, -0, too many digits, past an int32 at the column's scale, ragged rows, more rows than capacity.
    for (const data of ['["1", "2"]', '["NA","2"]', '[1,"2"]', '["1e3","2"]', '["-0.0","2"]', '["1234567890","2"]', '["1.5","2"],["214748364.8","2"]', '["1"]', '["1","2","3"]', '["1","2"],["1","2"],["1","2"],["1","2"],["1","2"]', '["1","2"] ']) {
      expect(rows(data)).toBeNull();
    }
  });

  it('the WebAssembly cell reading (one 16-byte load per common cell) agrees with the JavaScript reading at its edges', () => {
    // Lengths around the load's 16 bytes, digit counts around 9, more than one dot or sign, the
    // bytes next to '0'–'9' ('/' and ':'), signs and dots alone, -0, int32 bounds, non-ASCII.
    const cells = ['1.2.3', '1..2', '.', '-.', '-', '--1', '-1-', '1-', '0.1234567891', '0.123456789', '1234567890', '123456789',
      '123456789.123456', '12345678.123456', '-1234567.123456', '-12345678.123456', '1234.1234567890', '5.', '.5', '-.5', '-5.',
      '00012', '0.000', '1.10', '-0', '-0.0', '1e5', '+1', '1 2', '١', '1/2', '1:2', '/1', '2147483647', '2147483648',
      '-2147483647', '-2147483648', '214748.3648', '99999999.9', '0.0000001', '000000000.000000001'];
    const columnsOf = (json: Uint8Array, wasm: boolean) => {
      useWasmDecimals(wasm);
      const data = readFrameColumns(json);
      return data && data.numeric.map((c) => `${c.scale}:${Buffer.from(c.values.buffer, c.values.byteOffset, c.values.byteLength).toString('hex')}`);
    };
    let read = 0;
    for (const cell of cells) {
      // The cell alone, after rows that set the column's scale, and in the middle of a row.
      for (const data of [[[cell]], [['1.5'], ['-20.25'], [cell], ['3']], [['7', cell, '0.5'], ['1', '2', '3']]]) {
        const json = enc.encode(JSON.stringify({ attributeNames: data[0].map((_, i) => `a${i}`), attributeTypes: data[0].map(() => 'C'), data }));
        const viaWasm = columnsOf(json, true);
        expect({ cell, data, columns: viaWasm }).toEqual({ cell, data, columns: columnsOf(json, false) });
        if (viaWasm) read++;
      }
    }
    expect(read).toBeGreaterThan(40);
  });

  it('columns of fixed-point decimals travel as int32 mantissas and a scale; others as float64', () => {
    const read = (cells: string[]) => parseFrameJson(enc.encode(JSON.stringify({ attributeNames: ['x'], attributeTypes: ['C'], data: cells.map((c) => [c]) })))!;
    const decimals = frameToColumns(read(['-12.345678', '0.5', 'NA', '99', '-2147.483647']));
    expect(decimals.numeric[0].scale).toBe(6);
    expect(decimals.numeric[0].values.byteLength).toBe(5 * 4);
    const back = frameFromColumns(decimals).numeric[0].values;
    expect(Array.from(back)).toEqual([-12.345678, 0.5, NaN, 99, -2147.483647]);
    // Too many digits for an int32 at one scale, 17 significant digits, -0: float64.
    for (const cells of [['1.5', '3000.123456'], ['0.30000000000000004'], ['-0', '1']]) {
      const columns = frameToColumns(read(cells));
      expect(columns.numeric[0].scale).toBeUndefined();
      expect(Array.from(frameFromColumns(columns).numeric[0].values).map((v) => Object.is(v, -0) ? '-0' : v)).toEqual(cells.map((c) => (c === '-0' ? '-0' : Number(c))));
    }
  });

  it('decimal columns carry their bound (2^31), which spares them the magnitude check; float64 columns are still checked', () => {
    const mantissas = (values: number[], scale: number): FrameColumnsData => ({
      names: ['x'], types: ['C'], rowCount: values.length, categorical: [],
      numeric: [{ name: 'x', kind: 'C', values: new Uint8Array(Int32Array.from(values).buffer), scale }],
    });
    // The widest mantissas at scale 0: every value within the bound, learned.
    const widest = frameFromColumns(mantissas([2147483647, -2147483647, -2147483648], 0));
    expect(widest.numeric[0].bound).toBe(2 ** 31);
    expect(Array.from(widest.numeric[0].values)).toEqual([2147483647, -2147483647, NaN]);
    const s = new Summary();
    s.prepare('learn', { columns: widest }).commit();
    expect(s.max('x')).toBe(2147483647);
    // Fuzzed: any int32 mantissa at any scale reads within the bound.
    fc.assert(fc.property(fc.array(fc.integer({ min: -2147483647, max: 2147483647 }), { minLength: 1, maxLength: 20 }), fc.integer({ min: 0, max: 9 }), (ms, scale) => {
      const column = frameFromColumns(mantissas(ms, scale)).numeric[0];
      return Array.from(column.values).every((v) => Math.abs(v) <= column.bound!);
    }));
    // A float64 column (no scale) has no bound and is checked value by value, as a JSON frame is.
    const huge = frameFromColumns({ names: ['x'], types: ['C'], rowCount: 2, categorical: [], numeric: [{ name: 'x', kind: 'C', values: new Uint8Array(Float64Array.from([1, 1e65]).buffer) }] });
    expect(huge.numeric[0].bound).toBeUndefined();
    expect(() => new Summary().prepare('learn', { columns: huge })).toThrow(/row 2, column \[x\]: value 1e\+65 is larger in magnitude than 1e\+64/);
  });

  it('refuses frame columns that frameToColumns could not have written', () => {
    const good = frameToColumns(parseFrameJson(enc.encode(JSON.stringify({ attributeNames: ['x', 'c'], attributeTypes: ['C', 'T'], data: [['1', 'a'], ['2', 'b']] })))!);
    expect(frameFromColumns(good).rows.length).toBe(2);
    expect(() => frameFromColumns({ ...good, rowCount: 3 })).toThrow(/values of x/);
    expect(() => frameFromColumns({ ...good, types: ['C'] })).toThrow(/length/);
    expect(() => frameFromColumns({ ...good, numeric: [{ ...good.numeric[0], kind: 'T' }] })).toThrow(/kind T/);
    expect(() => frameFromColumns({ ...good, categorical: [{ ...good.categorical[0], levels: ['a'] }] })).toThrow(/code 1 of c/);
    expect(() => frameFromColumns({ ...good, numeric: [{ ...good.numeric[0], name: 'zz' }] })).toThrow(/column zz/);
    expect(() => frameFromColumns({ ...good, numeric: [{ ...good.numeric[0], scale: 12 }] })).toThrow(/scale 12/);
  });

  it('a summary that reads cells refuses frame columns (its owner asks for the JSON instead)', () => {
    const columns = frameFromColumns(frameToColumns(parseFrameJson(enc.encode(JSON.stringify({ attributeNames: ['x', 'p'], attributeTypes: ['C', 'T'], data: [['1', 'a']] })))!));
    const s = new Summary({ partitionSplit: 'p' });
    expect(s.needsCells).toBe(true);
    expect(() => s.prepare('learn', { columns })).toThrow(/cells/);
    expect(new Summary().needsCells).toBe(false);
  });

  it('a common numeric frame takes the fast path', () => {
    const json = JSON.stringify({ attributeNames: ['x', 'y'], attributeTypes: ['C', 'B'], data: [['1.5', '0'], ['-2e3', '1'], ['NA', '']], errorHandling: 0 });
    const parsed = parseFrameJson(enc.encode(json));
    expect(parsed).not.toBeNull();
    expect(Array.from(parsed!.numeric[0].values)).toEqual([1.5, -2000, NaN]);
  });

  it.each([
    ['data before attributeTypes (the API.md test vector)', '{"attributeNames":["x"],"data":[["1"]],"attributeTypes":["C"]}'],
    ['an escaped cell', '{"attributeNames":["x"],"attributeTypes":["C"],"data":[["\\u0031"]]}'],
    ['lenient frames', '{"attributeNames":["x"],"attributeTypes":["C"],"data":[["1"]],"errorHandling":1}'],
  ])('declines %s', (_what, json) => {
    expect(parseFrameJson(enc.encode(json))).toBeNull();
    expect(new Summary().learnJson(enc.encode(json)).report.rowsLearned).toBe(1);
  });

  it('malformed JSON throws SyntaxError', () => {
    expect(() => new Summary().learnJson(enc.encode('{"attributeNames": ['))).toThrow(SyntaxError);
  });
});
