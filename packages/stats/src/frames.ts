/**
 * `@sml/stats/frames`: the frame reader alone, for a process that reads learn bodies but
 * computes nothing from them (the gateway). It loads the frame modules only, not the
 * summary, the models or their numeric dependencies. The summary learns with the same code,
 * so what the gateway reads is what the project would have read (frame-json.test.ts).
 */
export { parseFrameJson } from './frame-json';
export { type FrameColumnsData, type FrameColumnsInput, frameFromColumns, frameToColumns, readFrameColumns } from './frame-columns';
export type { ColumnType, ParsedFrame } from './frame';
// The gateway's entry points select the kernels its frame reading runs (kernels/select.ts).
export { type KernelChoice, type KernelOptions, selectKernels } from './kernels/select';
