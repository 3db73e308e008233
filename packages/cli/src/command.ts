import type { Command } from 'commander';
import { Output, type CliIo } from './io';

/** Shared by every command of one `run`: where to write, and where the exit code goes. */
export interface CommandContext {
  io: CliIo;
  setExitCode(code: number): void;
}

/**
 * Adapts a handler to commander, which discards action results: the handler gets an Output
 * that honours the global `--json`, then its positional arguments and options, and returns
 * the exit code.
 */
export function action<A extends unknown[]>(ctx: CommandContext, handler: (out: Output, ...args: A) => Promise<number>) {
  return async (...args: unknown[]): Promise<void> => {
    const command = args[args.length - 1] as Command;
    const out = new Output(ctx.io, command.optsWithGlobals<{ json?: boolean }>().json === true);
    ctx.setExitCode(await handler(out, ...(args.slice(0, -1) as A)));
  };
}
