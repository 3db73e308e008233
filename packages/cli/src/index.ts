/** @sml/cli — the `sml` command line, runnable in-process through `run`. */
export { run } from './program';
export type { CliIo, Writer } from './io';
