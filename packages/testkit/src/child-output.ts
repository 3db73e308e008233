import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * The first line a child process prints on stdout that `parse` accepts (a starter waiting for
 * "listening on …" or an address). Fails when the child exits or errs first, or after
 * `timeoutMs`; `what`, `waitingFor` and the child's stderr so far name the problem.
 */
export function firstStdoutLine<T>(
  child: ChildProcess,
  opts: { what: string; waitingFor: string; timeoutMs: number; stderr: () => string; parse: (line: string) => T | undefined },
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${opts.what} did not finish ${opts.waitingFor} within ${opts.timeoutMs} ms: ${opts.stderr().trim()}`)), opts.timeoutMs);
    const lines = createInterface({ input: child.stdout! });
    const onExit = (code: number | null) => fail(new Error(`${opts.what} exited (${code}) before ${opts.waitingFor}: ${opts.stderr().trim()}`));
    const settle = () => {
      clearTimeout(timer);
      lines.close();
      child.off('exit', onExit).off('error', fail);
    };
    function fail(error: Error) {
      settle();
      reject(error);
    }
    lines.on('line', (line) => {
      const value = opts.parse(line);
      if (value === undefined) return;
      settle();
      resolve(value);
    });
    child.once('error', fail).once('exit', onExit);
  });
}
