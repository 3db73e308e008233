import { GRAM_WASM_BASE64 } from './gram-wasm';
import type { NativeAddon } from './native';
import { kernels } from './select';

/*
 * Cross products of a block of columns: the O(rows · p²) inner loop of the summary update
 * (moments.ts). Each block is column-major, `stride` doubles a column (the rows rounded up to
 * even, the padding zero), its column count rounded up to a multiple of 4 (the extra columns
 * zero). `strip(k, b)` sums, for the columns a < b + 4 of block k and j < 4,
 *   out[4a + j] = Σ_r X[a][r] · X[b + j][r]
 * in plain double arithmetic (two partial sums, even and odd rows): the caller folds each
 * block's result into compensated sums, so the rounding of a strip stays within a block.
 *
 * The kernels (select.ts picks one), by preference: native (native/kernels.c: AVX2 and
 * FMA, four rows per lane), where it was built and the CPU has them; WebAssembly SIMD
 * (gram.wat, two rows per f64x2 lane: ≈ 3.5× the same tiles in JavaScript on this machine);
 * the JavaScript tiles below. They compute the same sums, not always bit for bit (the order of
 * additions differs, and FMA rounds each product-add once).
 */

/**
 * One form of the cross products: where its blocks live (the memory it reads) and strip
 * itself. select.ts picks one (native, then WebAssembly, then JavaScript where a form is
 * missing).
 */
export interface GramKernel {
  readonly name: 'native' | 'wasm' | 'js';
  /** Doubles per column of a block of `rows` rows: the native kernel reads four rows at a time, the others two. */
  stride(rows: number): number;
  /** `doubles` of memory the kernel reads, from its start; every block is filled (values, then clearPadding) before it is read. */
  memory(doubles: number): Float64Array;
  /** out[4a + j] = Σ_r X[a][r] · X[b + j][r] for the columns a < b + 4 of block x and j < 4. */
  strip(x: Float64Array, stride: number, b: number, out: Float64Array): void;
}

// The part of the WebAssembly JS API used here (@types/node 20 does not declare it, and the
// DOM library would bring the browser's globals).
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: object };
};
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

interface WasmExports {
  readonly memory: WasmMemory;
  strip(x: number, stride: number, b: number, out: number): void;
}

let wasm: WasmExports | null | undefined;

function wasmExports(): WasmExports | null {
  if (wasm === undefined) {
    try {
      const module = new WebAssembly.Module(Buffer.from(GRAM_WASM_BASE64, 'base64'));
      wasm = new WebAssembly.Instance(module).exports as unknown as WasmExports;
    } catch {
      wasm = null; // no WebAssembly SIMD here: the JavaScript tiles
    }
  }
  return wasm;
}

const evenStride = (rows: number) => rows + (rows & 1);

/** The WebAssembly SIMD kernel, or null where this runtime does not compile it. */
export function wasmGram(): GramKernel | null {
  const w = wasmExports();
  if (w === null) return null;
  return {
    name: 'wasm',
    stride: evenStride,
    memory(doubles) {
      const bytes = doubles * 8;
      // Memory only grows: it stays at the widest block this thread has learned.
      if (w.memory.buffer.byteLength < bytes) w.memory.grow(Math.ceil((bytes - w.memory.buffer.byteLength) / PAGE));
      return new Float64Array(w.memory.buffer, 0, doubles);
    },
    strip: (x, stride, b, out) => w.strip(x.byteOffset, stride * 8, b, out.byteOffset),
  };
}

export function nativeGram(addon: NativeAddon): GramKernel {
  return { name: 'native', stride: (rows) => Math.ceil(rows / 4) * 4, memory: nativeMemory, strip: (x, stride, b, out) => addon.strip(x, stride, b, out) };
}

export const jsGram: GramKernel = { name: 'js', stride: evenStride, memory: (doubles) => new Float64Array(doubles), strip: stripJs };

const PAGE = 65536;

/**
 * Rows per block for `columns` columns: a block of one matrix near 2 MiB (measured at p = 200
 * and 2000 against 0.5 and 4 MiB: bench/summary.mjs), between 64 and 1024 rows.
 */
export function gramBlockRows(columns: number): number {
  return Math.min(1024, Math.max(64, 2 ** Math.floor(Math.log2((1 << 21) / 8 / Math.max(1, columns)))));
}

/** `count` column-major blocks of `columns` × `rows` and the strip output, in the kernel's memory. */
export class GramBlocks {
  /** Columns per block, a multiple of 4. */
  readonly columns: number;
  /** Doubles per column: the rows rounded up to even. */
  readonly stride: number;
  readonly blocks: Float64Array[];
  /** out[4a + j] after strip(k, b). */
  readonly out: Float64Array;
  private readonly kernel: GramKernel;

  constructor(count: number, columns: number, rows: number) {
    this.columns = Math.ceil(columns / 4) * 4;
    this.kernel = kernels().gram;
    this.stride = this.kernel.stride(rows);
    const size = this.columns * this.stride;
    const memory = this.kernel.memory(count * size + 4 * this.columns);
    this.blocks = Array.from({ length: count }, (_, k) => memory.subarray(k * size, (k + 1) * size));
    this.out = memory.subarray(count * size, count * size + 4 * this.columns);
  }

  /** Zeroes the padding: columns from `used` on and rows from `rows` on, in every block. */
  clearPadding(used: number, rows: number): void {
    for (const x of this.blocks) {
      for (let a = 0; a < used; a++) x.fill(0, a * this.stride + rows, (a + 1) * this.stride);
      x.fill(0, used * this.stride);
    }
  }

  strip(k: number, b: number): void {
    this.kernel.strip(this.blocks[k], this.stride, b, this.out);
  }
}

let nativeBuffer = new Float64Array(0);

/**
 * `doubles` of memory for the native kernel's blocks, kept between updates as the WebAssembly
 * memory is (a 200-attribute update's blocks are 3 MiB): it only grows, to the widest block
 * this thread has learned.
 */
function nativeMemory(doubles: number): Float64Array {
  if (nativeBuffer.length < doubles) nativeBuffer = new Float64Array(doubles);
  return nativeBuffer;
}

/** The kernel's contract in JavaScript: tiles of 2 × 4 columns, eight accumulators. */
function stripJs(x: Float64Array, stride: number, b: number, out: Float64Array): void {
  const o0 = b * stride, o1 = o0 + stride, o2 = o1 + stride, o3 = o2 + stride;
  for (let a = 0; a < b + 4; a += 2) {
    const oa = a * stride, ob = oa + stride;
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0, t0 = 0, t1 = 0, t2 = 0, t3 = 0;
    for (let r = 0; r < stride; r++) {
      const u = x[oa + r], w = x[ob + r];
      const v0 = x[o0 + r], v1 = x[o1 + r], v2 = x[o2 + r], v3 = x[o3 + r];
      s0 += u * v0; s1 += u * v1; s2 += u * v2; s3 += u * v3;
      t0 += w * v0; t1 += w * v1; t2 += w * v2; t3 += w * v3;
    }
    const k = 4 * a;
    out[k] = s0; out[k + 1] = s1; out[k + 2] = s2; out[k + 3] = s3;
    out[k + 4] = t0; out[k + 5] = t1; out[k + 6] = t2; out[k + 7] = t3;
  }
}
