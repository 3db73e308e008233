import { DECIMALS_WASM_BASE64 } from './decimals-wasm';

/*
 * The data rows of the common learn frame (C columns, every cell a quoted plain decimal or "")
 * read into int32 decimal mantissas by WebAssembly (decimals.wat): the loop the gateway runs
 * on every byte of a learn request, ≈ 4× the JavaScript reader (frame-json.ts decimalRow) on
 * this machine (bench/RESULTS.md "learn" notes). It declines every frame it is not sure to read
 * exactly as the JavaScript reader does (spacing, other forms of cells, a mantissa that would
 * not fit): the caller then reads the frame in JavaScript, so both give the same bytes.
 */

// The part of the WebAssembly JS API used here (@types/node 20 does not declare it).
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: object };
};

interface DecimalsExports {
  readonly memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  readonly end: { readonly value: number };
  rows(p: number, width: number, out: number, cap: number, scales: number): number;
}

/** Inputs beyond this many bytes are read in JavaScript (the memory they would take stays with the instance). */
export const WASM_DECIMALS_MAX_BYTES = 64 * 2 ** 20;
/**
 * An instance whose memory grew past this is dropped after its call (the next one starts
 * small): a few large requests do not pin their memory in every gateway.
 */
const KEEP_BYTES = 16 * 2 ** 20;
const PAGE = 65536;
/** The module's table of powers of ten (decimals.wat): the caller's data starts after it. */
const TABLE_BYTES = 128;
/** The widest load decimals.wat makes (a v128). */
const LOAD_BYTES = 16;

let compiled: object | null | undefined;
let kept: DecimalsExports | undefined;

function instance(): DecimalsExports | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(Buffer.from(DECIMALS_WASM_BASE64, 'base64'));
    } catch {
      compiled = null; // no WebAssembly here: the JavaScript reader
    }
  }
  if (compiled === null) return null;
  return (kept ??= new WebAssembly.Instance(compiled).exports as unknown as DecimalsExports);
}

/** Whether this runtime compiles decimals.wat (select.ts). */
export function wasmDecimalsAvailable(): boolean {
  return instance() !== null;
}

export interface DecimalRows {
  rows: number;
  /** The byte after the data array's closing bracket. */
  end: number;
  /** Per column: int32 mantissas at scales[c]; -2^31 = missing. */
  mantissas: Int32Array[];
  scales: Int32Array;
}

/**
 * The rows of a data array of `width` C columns whose first row starts at b[pos] (its `[`),
 * at most `capacity` of them; null when the WebAssembly reading declines them.
 */
export function wasmDecimalRows(b: Uint8Array, pos: number, width: number, capacity: number): DecimalRows | null {
  const length = b.length - pos;
  if (instance() === null || length > WASM_DECIMALS_MAX_BYTES) return null;
  const w = instance()!;
  // Layout: the scales, the input and its 0 sentinel, the columns (each `capacity` int32s), and
  // LOAD_BYTES to spare: a cell is read with a 16-byte load, which may reach past the columns.
  const scalesAt = TABLE_BYTES;
  const inputAt = align(scalesAt + width * 4);
  const outAt = align(inputAt + length + 1);
  const need = outAt + width * capacity * 4 + LOAD_BYTES;
  try {
    // A memory that cannot grow (the address space of a 32-bit runtime, a process near its limit) declines too.
    if (need > w.memory.buffer.byteLength && !tryGrow(w, Math.ceil((need - w.memory.buffer.byteLength) / PAGE))) return null;
    const memory = new Uint8Array(w.memory.buffer);
    memory.fill(0, scalesAt, scalesAt + width * 4);
    memory.set(b.subarray(pos), inputAt);
    memory[inputAt + length] = 0;
    const rows = w.rows(inputAt, width, outAt, capacity, scalesAt);
    if (rows < 0) return null;
    const buffer = w.memory.buffer;
    return {
      rows,
      end: pos + (w.end.value - inputAt),
      mantissas: Array.from({ length: width }, (_, c) => new Int32Array(buffer, outAt + c * capacity * 4, rows).slice()),
      scales: new Int32Array(buffer, scalesAt, width).slice(),
    };
  } finally {
    if (w.memory.buffer.byteLength > KEEP_BYTES) kept = undefined;
  }
}

/**
 * The rows reader of the common learn frame (frame-json.ts decimalFrame): the rows of a data
 * array of `width` C columns whose first row starts at b[pos], or null where it declines them
 * (the JavaScript reader then reads them, with the same result).
 */
export interface DecimalsKernel {
  readonly name: 'wasm' | 'js';
  rows(b: Uint8Array, pos: number, width: number, capacity: number): DecimalRows | null;
}

export const wasmDecimals: DecimalsKernel = { name: 'wasm', rows: wasmDecimalRows };
/** No fast reader: every frame is read by frame-json.ts' JavaScript loop. */
export const jsDecimals: DecimalsKernel = { name: 'js', rows: () => null };

const align = (n: number) => Math.ceil(n / 16) * 16;

function tryGrow(w: DecimalsExports, pages: number): boolean {
  try {
    w.memory.grow(pages);
    return true;
  } catch {
    return false;
  }
}
