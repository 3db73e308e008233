import { jsDecimals, wasmDecimals, wasmDecimalsAvailable, type DecimalsKernel } from './decimals';
import { jsGram, nativeGram, wasmGram, type GramKernel } from './gram';
import { jsHistogram, nativeHistogram, type HistogramKernel } from './histogram';
import { jsMantissas, nativeMantissas, type MantissasKernel } from './mantissas';
import { jsMoments, nativeMoments, type MomentsKernel } from './moments';
import { nativeAddon } from './native';

/*
 * Which form of each inner loop this thread runs, chosen once at start-up by the entry point
 * (a service's main, the CLI, a script, a worker thread) from its configuration
 * (SML_STATS_KERNEL, SML_STATS_NATIVE in @sml/core's schema); the domain code calls
 * kernels().<operation> and never asks which form it got.
 */

/** The preferred form: `auto` is the fastest this machine has (native, then WebAssembly, then JavaScript). */
export type KernelChoice = 'auto' | 'native' | 'wasm' | 'js';

export interface KernelOptions {
  /**
   * The cross-product kernel (gram) wanted; a form the machine lacks falls to the next one.
   * `js` also reads learn frames in JavaScript (no WebAssembly decimals). Default `auto`.
   */
  kernel?: KernelChoice;
  /** false: the native addon is not used for any operation (WebAssembly and JavaScript serve). Default true. */
  native?: boolean;
}

export interface Kernels {
  readonly gram: GramKernel;
  readonly moments: MomentsKernel;
  readonly histogram: HistogramKernel;
  readonly mantissas: MantissasKernel;
  readonly decimals: DecimalsKernel;
}

let selected: Kernels | undefined;

/**
 * Chooses every operation's kernel for this thread and returns the choice (tests and
 * benchmarks select again to compare kernels). Called with no options it is what production
 * runs: the fastest form of each.
 */
export function selectKernels(options: KernelOptions = {}): Kernels {
  const wanted = options.kernel ?? 'auto';
  const addon = options.native === false ? null : nativeAddon();
  const wasm = wanted === 'js' ? null : wasmGram();
  selected = {
    gram: wanted !== 'wasm' && wanted !== 'js' && addon !== null ? nativeGram(addon) : wasm ?? jsGram,
    moments: addon !== null ? nativeMoments(addon) : jsMoments,
    histogram: addon !== null ? nativeHistogram(addon) : jsHistogram,
    mantissas: addon !== null ? nativeMantissas(addon) : jsMantissas,
    decimals: wanted !== 'js' && wasmDecimalsAvailable() ? wasmDecimals : jsDecimals,
  };
  return selected;
}

/** The kernels selected; the default selection (auto) where no entry point made one. */
export function kernels(): Kernels {
  return selected ?? selectKernels();
}
