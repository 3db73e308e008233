// Local process supervision the way Kubernetes restarts a crashed container: a process that
// dies is started again after a back-off (0.5 s, doubling up to 30 s; back to 0.5 s once it
// had stayed up 60 s), with one readable line saying what died, why and when it restarts.
// The others keep running. `stop()` stops everything (those marked `last` after the others)
// and nothing restarts after it. Used by scripts/run.mjs (`npm run up`); CommonJS so that
// both run.mjs and the jest tests load it as is.
'use strict';
const { spawn: nodeSpawn } = require('node:child_process');

/** Back-off figures, ms (README: "What an operator sees when a service restarts"). */
const BACKOFF = Object.freeze({ initialMs: 500, maxMs: 30_000, resetAfterMs: 60_000 });

/** The delay before the next start: the initial one after a long enough run, else doubled. */
function nextDelay(previousMs, uptimeMs, backoff = BACKOFF) {
  if (previousMs === undefined || uptimeMs >= backoff.resetAfterMs) return backoff.initialMs;
  return Math.min(previousMs * 2, backoff.maxMs);
}

function exitReason(code, signal) {
  return signal ? `killed by ${signal}` : `exit code ${code}`;
}

const seconds = (ms) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
const clock = (t) => new Date(t).toISOString().slice(11, 23);

class Supervisor {
  /**
   * @param {object} [opts]
   * @param {(name: string, line: string, level: 'info' | 'warn') => void} [opts.log] one line per event
   * @param {{initialMs: number, maxMs: number, resetAfterMs: number}} [opts.backoff]
   * @param {number} [opts.stopTimeoutMs] SIGKILL a process still running this long after SIGTERM
   * @param {typeof nodeSpawn} [opts.spawn]
   */
  constructor(opts = {}) {
    this.log = opts.log ?? ((name, line) => process.stdout.write(`[${name}] ${line}\n`));
    this.backoff = opts.backoff ?? BACKOFF;
    this.stopTimeoutMs = opts.stopTimeoutMs ?? 15_000;
    this.spawn = opts.spawn ?? nodeSpawn;
    this.procs = new Map();
    this.stopping = false;
  }

  /**
   * Runs `cmd args` under `name` until `stop()`. `onStart(child)` is called on every start
   * (e.g. to read its output); `last` processes are stopped after the others (nats-server).
   */
  start(name, cmd, args, { env, onStart, last = false } = {}) {
    if (this.procs.has(name)) throw new Error(`${name} is already supervised`);
    const p = { name, cmd, args, env, onStart, last, child: undefined, startedAt: 0, delay: undefined, restarts: 0, timer: undefined };
    this.procs.set(name, p);
    this.launch(p);
    return p;
  }

  /** The pid of the running process, undefined while it waits for a restart. */
  pid(name) {
    return this.procs.get(name)?.child?.pid;
  }

  /** How many times `name` was restarted. */
  restarts(name) {
    return this.procs.get(name)?.restarts ?? 0;
  }

  launch(p) {
    p.timer = undefined;
    if (this.stopping) return;
    const child = this.spawn(p.cmd, p.args, { env: p.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    p.child = child;
    p.startedAt = Date.now();
    let handled = false;
    const ended = (code, signal, err) => {
      if (handled) return;
      handled = true;
      this.exited(p, child, code, signal, err);
    };
    child.once('exit', (code, signal) => ended(code, signal));
    // A command that cannot be started (ENOENT, EACCES) emits 'error' and may never 'exit'.
    child.on('error', (err) => { if (child.pid === undefined) ended(null, null, err); });
    p.onStart?.(child);
    if (child.pid !== undefined) this.log(p.name, `${p.restarts ? 'restarted' : 'started'} (pid ${child.pid})`, 'info');
  }

  exited(p, child, code, signal, err) {
    if (p.child === child) p.child = undefined;
    if (this.stopping) return;
    const up = Date.now() - p.startedAt;
    p.delay = nextDelay(p.delay, up, this.backoff);
    p.restarts++;
    const why = err ? `(could not start: ${err.message})` : `(${exitReason(code, signal)}) after ${seconds(up)} up`;
    this.log(p.name, `died ${why}; restarting in ${seconds(p.delay)}, at ${clock(Date.now() + p.delay)} (restart #${p.restarts})`, 'warn');
    p.timer = setTimeout(() => this.launch(p), p.delay);
  }

  /** Stops every process (SIGTERM, SIGKILL after stopTimeoutMs): the others first, then the `last` ones. */
  async stop() {
    this.stopping = true;
    for (const p of this.procs.values()) clearTimeout(p.timer);
    const all = [...this.procs.values()];
    await Promise.all(all.filter((p) => !p.last).map((p) => this.terminate(p)));
    await Promise.all(all.filter((p) => p.last).map((p) => this.terminate(p)));
  }

  terminate(p) {
    const c = p.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const force = setTimeout(() => c.kill('SIGKILL'), this.stopTimeoutMs);
      c.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      c.kill('SIGTERM');
    });
  }
}

module.exports = { Supervisor, BACKOFF, nextDelay, exitReason };
