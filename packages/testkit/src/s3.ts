/**
 * A throw-away S3 server for tests: `s3rver` (npm) as a child process on a loopback port it
 * picks itself (`-p 0`), objects under a temp directory, path-style addressing only. A child
 * process rather than in-process so a test measuring its own memory measures the client
 * alone. stop() kills it and deletes the directory.
 *
 * What s3rver checks, as measured with @aws-sdk/client-s3 v3: the access key must be its one
 * built-in key (`S3RVER`, else 403 InvalidAccessKeyId); signature v4 is parsed but not
 * verified, so a wrong secret key is accepted. Clients must use path-style addressing and
 * `requestChecksumCalculation: 'WHEN_REQUIRED'`: by default the SDK uploads a stream as an
 * aws-chunked body with a checksum trailer, which s3rver does not decode but stores, framing
 * and all, as the object's bytes.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstStdoutLine } from './child-output';

export interface S3Server {
  /** `http://127.0.0.1:<port>`: the `s3endpoint` of a data source. */
  endpoint: string;
  port: number;
  /** Where s3rver keeps buckets and objects. */
  directory: string;
  /** The only credentials s3rver accepts. */
  accessKey: string;
  secretKey: string;
  region: string;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;

/** Starts s3rver with the given buckets created (empty). */
export async function startS3(options: { buckets?: string[] } = {}): Promise<S3Server> {
  const dir = await mkdtemp(join(tmpdir(), 'sml-s3-'));
  const bin = require.resolve('s3rver/bin/s3rver.js');
  const bucketArgs = (options.buckets ?? []).flatMap((name) => ['--configure-bucket', name]);
  const child = spawn(process.execPath, [bin, '-d', dir, '-a', '127.0.0.1', '-p', '0', '--silent', '--no-vhost-buckets', ...bucketArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A test process that dies without stop() must not leave a server behind.
  const killNow = () => { child.kill('SIGKILL'); };
  process.once('exit', killNow);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  try {
    // The binary prints an empty line, then `S3rver listening on <address>:<port>`.
    const port = await firstStdoutLine(child, {
      what: 's3rver', waitingFor: 'listening', timeoutMs: READY_TIMEOUT_MS, stderr: () => stderr,
      parse: (line) => {
        const listening = /listening on .*:(\d+)\s*$/.exec(line);
        return listening ? Number(listening[1]) : undefined;
      },
    });
    child.stdout.resume();

    let stopped = false;
    return {
      endpoint: `http://127.0.0.1:${port}`,
      port,
      directory: dir,
      accessKey: 'S3RVER',
      secretKey: 'S3RVER',
      region: 'us-east-1',
      async stop() {
        if (stopped) return;
        stopped = true;
        process.removeListener('exit', killNow);
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const timer = setTimeout(killNow, STOP_TIMEOUT_MS);
          await exited;
          clearTimeout(timer);
        }
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    process.removeListener('exit', killNow);
    killNow();
    await exited;
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
