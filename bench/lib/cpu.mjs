// CPU accounting of a benchmark's own processes (Linux /proc).
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Whether pid is this process or a descendant of it (other sessions' services may run on the machine). */
export function ours(pid) {
  for (let p = Number(pid), k = 0; p > 1 && k < 20; k++) {
    if (p === process.pid) return true;
    try {
      p = Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * CPU milliseconds (user + system) so far of this process ('client'), each service process of
 * ours (by its services/<name>/dist/main path) and our nats-server; /proc ticks are 10 ms.
 */
export function cpuMs() {
  const out = {};
  if (!existsSync('/proc/self/stat')) return out;
  const tick = 10; // USER_HZ = 100 on Linux
  for (const pid of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const name = Number(pid) === process.pid ? 'client' : cmd.includes('nats-server') ? 'nats-server' : (cmd.match(/services\/(\w+)\/dist\/main/) ?? [])[1];
      if (!name || !ours(pid)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      out[name] = (out[name] ?? 0) + (Number(stat[11]) + Number(stat[12])) * tick;
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/**
 * The whole machine's CPU time so far from /proc/stat's first line: `busy` (every state but
 * idle and iowait) and `all`, in ticks; the difference of two readings gives the share of the
 * cores left idle in between (whoever was running: our processes, the kernel, anything else).
 */
export function machineTicks() {
  if (!existsSync('/proc/stat')) return { busy: 0, all: 0 };
  const t = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
  const all = t.reduce((a, b) => a + b, 0);
  return { busy: all - t[3] - t[4], all };
}
