import { run } from '../src';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one `sml` command line in-process with exactly `env` and captures its output. */
export async function sml(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env,
  });
  return { code, stdout, stderr };
}
