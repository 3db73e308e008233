import type { Envelope } from '@sml/sdk';
import { progress, type Progress } from './progress';

export interface Writer {
  write(chunk: string): unknown;
  /** Set by a terminal's stream: a progress bar is drawn only there. */
  isTTY?: boolean;
}

/** What a command reads and writes; injected so that tests run commands in-process. */
export interface CliIo {
  stdout: Writer;
  stderr: Writer;
  env: NodeJS.ProcessEnv;
}

export const isSuccess = (statusCode: number): boolean => statusCode >= 200 && statusCode < 300;

/**
 * What a failure's values say to check (a 401 'Invalid Signature': the measured clock skew and
 * the gateway's hint), printed under its statusString so a person can act on it.
 */
function failureHints(values: unknown): string[] {
  const v = (values ?? {}) as { clockSkewSeconds?: unknown; hint?: unknown };
  const out: string[] = [];
  if (typeof v.clockSkewSeconds === 'number') out.push(`clock skew: your Sym-date is ${v.clockSkewSeconds} s from the server's clock`);
  if (typeof v.hint === 'string') out.push(v.hint);
  return out;
}

/** One command's output: the raw envelope with `--json`, human-readable text otherwise. */
export class Output {
  constructor(private readonly io: CliIo, readonly json: boolean) {}

  /**
   * Prints an answer and returns the exit code: 0 for a 2xx, otherwise 1 with the
   * statusString on stderr (with `--json` the envelope still goes to stdout for scripts).
   */
  envelope<V>(body: Envelope<V>, human: (values: V) => string): number {
    const ok = isSuccess(body.statusCode);
    if (this.json) this.out(JSON.stringify(body));
    else if (ok) this.out(human((body.values ?? {}) as V));
    if (!ok) this.err([body.statusString, ...failureHints(body.values)].join('\n'));
    return ok ? 0 : 1;
  }

  /** A progress display on stderr, so that stdout keeps only the answer. */
  progress(label: string): Progress {
    return progress(this.io.stderr, label);
  }

  out(text: string): void {
    if (text !== '') this.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  err(text: string): void {
    this.io.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
  }
}
