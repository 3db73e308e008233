import { Command, CommanderError } from 'commander';
import { registerAdmin } from './commands/admin';
import { registerDensity } from './commands/density';
import { registerDss } from './commands/dss';
import { registerEncoders } from './commands/encoders';
import { registerDrift, registerExplore } from './commands/explore';
import { registerJobs } from './commands/jobs';
import { registerMatrix } from './commands/matrix';
import { registerModel } from './commands/model';
import { registerProjects } from './commands/projects';
import { registerStreams } from './commands/streams';
import { registerSurvival } from './commands/survival';
import { describeError } from './errors';
import type { CliIo } from './io';

/**
 * Runs one `sml` command line (arguments after the program name) and returns its exit
 * code: 0 when the answer was a 2xx, 1 otherwise. Never calls process.exit, so that
 * tests can run commands in-process.
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode = 0;
  // Built per call: commander keeps parsed state on the Command objects.
  const program = new Command('sml')
    .description('SML command line: customers over the bus; jobs, projects, data sources, exploration, survival, models, encoders and streams over the REST API')
    .option('--json', 'print the raw response envelope instead of a table')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  const ctx = { io, setExitCode: (code: number) => void (exitCode = code) };
  registerAdmin(program, ctx);
  registerJobs(program, ctx);
  registerProjects(program, ctx);
  registerDss(program, ctx);
  registerExplore(program, ctx);
  registerDrift(program, ctx);
  registerDensity(program, ctx);
  registerMatrix(program, ctx);
  registerSurvival(program, ctx);
  registerModel(program, ctx);
  registerEncoders(program, ctx);
  registerStreams(program, ctx);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    // Commander has already printed its own usage errors and help.
    if (err instanceof CommanderError) return err.exitCode;
    io.stderr.write(`sml: ${describeError(err)}\n`);
    return 1;
  }
}
