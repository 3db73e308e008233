/**
 * A Kafka-protocol broker for tests: `tools/kafka-mock` (librdkafka's mock cluster
 * hosted by kcat). It runs in `--stdin` mode, so it exits when our end of its stdin
 * closes: on stop(), and also when the test process dies without calling it.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { repoRoot } from './system';
import { setTimeout as sleep } from 'node:timers/promises';
import { firstStdoutLine } from './child-output';

export interface KafkaMock {
  /** `host:port[,host:port]` */
  bootstrap: string;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

/** $SML_KAFKA_MOCK, else the copy committed in `tools/kafka-mock` (vendored; see test/conformance/README.md). */
export function kafkaMockPath(): string {
  const fromEnv = process.env.SML_KAFKA_MOCK;
  if (fromEnv) return fromEnv;
  const committed = join(repoRoot(), 'tools', 'kafka-mock');
  if (existsSync(committed)) return committed;
  throw new Error(`kafka-mock not found at ${committed}: set SML_KAFKA_MOCK`);
}

function accepts(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/**
 * The script's cleanup signals kcat and exits without waiting for it, and kcat is not our
 * child; so "stopped" is observed as every broker port refusing connections.
 */
async function brokersClosed(bootstrap: string, deadline: number): Promise<void> {
  for (const address of bootstrap.split(',')) {
    while (await accepts(address)) {
      if (Date.now() > deadline) throw new Error(`kafka-mock broker ${address} still accepts connections after stop()`);
      await sleep(20);
    }
  }
}

export async function startKafkaMock(options: { brokers?: number } = {}): Promise<KafkaMock> {
  const child = spawn(kafkaMockPath(), ['--stdin', '--brokers', String(options.brokers ?? 1)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  // The first stdout line is the bootstrap address; the script prints nothing else.
  const bootstrap = await firstStdoutLine(child, { what: 'kafka-mock', waitingFor: 'printing an address', timeoutMs: READY_TIMEOUT_MS, stderr: () => stderr, parse: (line) => line.trim() })
    .catch((err: unknown) => {
      child.kill('SIGKILL');
      throw err;
    });

  let stopping: Promise<void> | undefined;
  return {
    bootstrap,
    stop() {
      stopping ??= (async () => {
        const deadline = Date.now() + STOP_TIMEOUT_MS;
        child.stdin.end();
        // bash defers the script's TERM trap while `cat` waits on stdin, so only SIGKILL ends a stuck one.
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
        await brokersClosed(bootstrap, deadline);
      })();
      return stopping;
    },
  };
}
